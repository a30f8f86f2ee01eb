// HloInstruction: one operation of a computation. Unlike XLA, which has a
// subclass per family of opcodes, every instruction here is one class with a
// single struct of typed attributes (HloAttributes); each opcode uses the
// fields its semantics need and leaves the others at their defaults. The
// text parser, the proto importer, the printer and every pass read and write
// the same fields.
#ifndef HLO_INSTRUCTION_H_
#define HLO_INSTRUCTION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/attributes.h"
#include "hlo/literal.h"
#include "hlo/opcode.h"
#include "hlo/shape.h"

namespace hloc {

class HloComputation;
class HloModule;

// Every typed attribute an instruction may carry. Which opcode uses which:
//   dimensions: broadcast, reduce, transpose, reverse, concatenate (one),
//     sort (one), all-gather/all-to-all (one), scan (one), reduce-scatter,
//     map, get-dimension-size / set-dimension-size (one).
//   slice_*: slice.  dynamic_slice_sizes: dynamic-slice.
//   gather_*: gather.  scatter_*: scatter.  window: reduce-window,
//   convolution, select-and-scatter.  padding_config: pad.
struct HloAttributes {
  std::vector<int64_t> dimensions;

  std::vector<int64_t> slice_starts;
  std::vector<int64_t> slice_limits;
  std::vector<int64_t> slice_strides;
  std::vector<int64_t> dynamic_slice_sizes;

  std::optional<Window> window;
  std::optional<PaddingConfig> padding_config;
  std::optional<DotDimensionNumbers> dot_dimension_numbers;
  std::optional<RaggedDotDimensionNumbers> ragged_dot_dimension_numbers;
  std::optional<ConvolutionDimensionNumbers> convolution_dimension_numbers;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  std::optional<PrecisionConfig> precision_config;
  std::optional<ResultAccuracy> result_accuracy;  // transcendental unary ops

  std::optional<GatherDimensionNumbers> gather_dimension_numbers;
  std::vector<int64_t> gather_slice_sizes;
  std::optional<ScatterDimensionNumbers> scatter_dimension_numbers;
  bool indices_are_sorted = false;
  bool unique_indices = false;

  // compare
  ComparisonDirection comparison_direction = ComparisonDirection::kEq;
  ComparisonType comparison_type = ComparisonType::kDefault;
  ComparisonOrder comparison_order = ComparisonOrder::kDefault;

  FusionKind fusion_kind = FusionKind::kLoop;  // fusion
  int64_t tuple_index = 0;                     // get-tuple-element
  int64_t parameter_number = 0;                // parameter
  std::optional<Literal> literal;              // constant
  int64_t iota_dimension = 0;                  // iota
  int64_t exponent_bits = 0;                   // reduce-precision
  int64_t mantissa_bits = 0;
  bool is_stable = false;                      // sort
  int64_t k = 0;                               // topk
  bool largest = true;
  int64_t num_carries = 0;                     // scan
  bool is_reverse = false;
  bool is_associative = false;

  // batch-norm-*
  float epsilon = 0;
  int64_t feature_index = 0;

  // rng, rng-bit-generator
  RandomDistribution distribution = RandomDistribution::kInvalid;
  RandomAlgorithm rng_algorithm = RandomAlgorithm::kDefault;

  // fft
  FftType fft_type = FftType::kFft;
  std::vector<int64_t> fft_length;

  std::optional<TriangularSolveOptions> triangular_solve_options;
  bool cholesky_lower = false;

  // custom-call
  std::string custom_call_target;
  CustomCallApiVersion api_version = CustomCallApiVersion::kOriginal;
  bool custom_call_has_side_effect = false;
  std::optional<std::vector<Shape>> operand_layout_constraints;
  std::vector<OutputOperandAlias> output_to_operand_aliasing;
  CustomCallSchedule custom_call_schedule = CustomCallSchedule::kNone;

  // Collectives.
  std::optional<int64_t> channel_id;
  std::vector<std::vector<int64_t>> replica_groups;
  // Compact iota form "[2,4]<=[8]" when the groups were given that way.
  std::string iota_replica_groups;
  bool use_global_device_ids = false;
  bool constrain_layout = false;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;

  // infeed/outfeed/send/recv
  std::string infeed_config;
  std::string outfeed_config;
  std::optional<Shape> outfeed_shape;
  bool is_host_transfer = false;

  // parameter
  std::vector<bool> parameter_replication;

  // async-start/update/done
  std::string async_execution_thread;
};

class HloInstruction {
 public:
  // A new, parentless instruction. Attach it with HloComputation::
  // AddInstruction, which takes ownership and registers it as a user of its
  // operands.
  static std::unique_ptr<HloInstruction> Create(
      HloOpcode opcode, const Shape& shape,
      absl::Span<HloInstruction* const> operands);
  static std::unique_ptr<HloInstruction> CreateParameter(int64_t number,
                                                         const Shape& shape,
                                                         std::string name);
  static std::unique_ptr<HloInstruction> CreateConstant(Literal literal);
  static std::unique_ptr<HloInstruction> CreateUnary(const Shape& shape,
                                                     HloOpcode opcode,
                                                     HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateBinary(const Shape& shape,
                                                      HloOpcode opcode,
                                                      HloInstruction* lhs,
                                                      HloInstruction* rhs);
  static std::unique_ptr<HloInstruction> CreateCompare(
      const Shape& shape, HloInstruction* lhs, HloInstruction* rhs,
      ComparisonDirection direction,
      ComparisonType type = ComparisonType::kDefault);
  static std::unique_ptr<HloInstruction> CreateBroadcast(
      const Shape& shape, HloInstruction* operand,
      std::vector<int64_t> dimensions);
  static std::unique_ptr<HloInstruction> CreateReshape(const Shape& shape,
                                                       HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateTranspose(
      const Shape& shape, HloInstruction* operand,
      std::vector<int64_t> dimensions);
  static std::unique_ptr<HloInstruction> CreateGetTupleElement(
      const Shape& shape, HloInstruction* operand, int64_t index);
  static std::unique_ptr<HloInstruction> CreateTuple(
      absl::Span<HloInstruction* const> elements);
  static std::unique_ptr<HloInstruction> CreateReduce(
      const Shape& shape, absl::Span<HloInstruction* const> operands_and_inits,
      std::vector<int64_t> dimensions, HloComputation* to_apply);
  static std::unique_ptr<HloInstruction> CreateFusion(
      const Shape& shape, FusionKind kind,
      absl::Span<HloInstruction* const> operands, HloComputation* fused);

  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;
  ~HloInstruction();

  HloOpcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  const std::string& name() const { return name_; }
  // Renames without uniquing; HloModule::UniquifyName gives a fresh name.
  void SetName(std::string name) { name_ = std::move(name); }
  int64_t unique_id() const { return unique_id_; }
  void SetUniqueId(int64_t id) { unique_id_ = id; }

  HloComputation* parent() const { return parent_; }

  // Operands and users. Users are kept in order of first use and hold each
  // user once, however many times it uses this instruction.
  int64_t operand_count() const {
    return static_cast<int64_t>(operands_.size());
  }
  HloInstruction* operand(int64_t i) const { return operands_[i]; }
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  const std::vector<HloInstruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  bool IsUserOf(const HloInstruction* operand) const;
  // Positions at which `operand` appears among this instruction's operands.
  std::vector<int64_t> OperandIndices(const HloInstruction* operand) const;

  // Rewires operand `i` to `new_operand` (keeps users lists consistent).
  absl::Status ReplaceOperandWith(int64_t i, HloInstruction* new_operand);
  // Makes every user of this instruction use `new_producer` instead, and
  // makes `new_producer` the root where this was. Shapes must be compatible.
  absl::Status ReplaceAllUsesWith(HloInstruction* new_producer);
  // As above but only for the given users.
  absl::Status ReplaceUsesWith(absl::Span<HloInstruction* const> users,
                               HloInstruction* new_producer);
  void AppendOperand(HloInstruction* operand);
  // Drops all operands (unregistering as their user); used before removal.
  void DetachFromOperands();

  // Control dependencies: this instruction must run after its predecessors.
  const std::vector<HloInstruction*>& control_predecessors() const {
    return control_predecessors_;
  }
  const std::vector<HloInstruction*>& control_successors() const {
    return control_successors_;
  }
  absl::Status AddControlDependencyTo(HloInstruction* successor);
  absl::Status RemoveControlDependencyTo(HloInstruction* successor);
  void DropAllControlDeps();

  // Computations this instruction calls, by role (see CalledComputationRole
  // in instruction.cc): to_apply for reduce/map/sort/scatter/reduce-window/
  // all-reduce/call/scan/topk-free ops; {select, scatter} for
  // select-and-scatter; {condition, body} for while; branches for
  // conditional; {fused} for fusion; any for custom-call and async-start.
  const std::vector<HloComputation*>& called_computations() const {
    return called_computations_;
  }
  void set_called_computations(std::vector<HloComputation*> computations) {
    called_computations_ = std::move(computations);
  }
  void set_called_computation(int64_t i, HloComputation* computation) {
    called_computations_[i] = computation;
  }
  HloComputation* to_apply() const;  // The single called computation.
  HloComputation* while_condition() const { return called_computations_[0]; }
  HloComputation* while_body() const { return called_computations_[1]; }
  HloComputation* fused_computation() const;  // For fusion instructions.
  // For fusion: the fused computation's root and parameters.
  HloInstruction* fused_expression_root() const;
  HloInstruction* fused_parameter(int64_t i) const;
  // True if the fusion's root is a tuple (several results).
  bool IsMultiOutputFusion() const;

  const HloAttributes& attrs() const { return attrs_; }
  HloAttributes& mutable_attrs() { return attrs_; }
  // Shorthands for the most used attributes.
  const std::vector<int64_t>& dimensions() const { return attrs_.dimensions; }
  int64_t dimensions(int64_t i) const { return attrs_.dimensions[i]; }
  const Literal& literal() const { return *attrs_.literal; }
  int64_t parameter_number() const { return attrs_.parameter_number; }
  int64_t tuple_index() const { return attrs_.tuple_index; }
  FusionKind fusion_kind() const { return attrs_.fusion_kind; }
  void set_fusion_kind(FusionKind kind) { attrs_.fusion_kind = kind; }
  ComparisonDirection comparison_direction() const {
    return attrs_.comparison_direction;
  }

  // Everything kept to round-trip modules; no stage interprets these.
  const OpMetadata& metadata() const { return metadata_; }
  OpMetadata* mutable_metadata() { return &metadata_; }
  const std::map<std::string, std::string>& frontend_attributes() const {
    return frontend_attributes_;
  }
  std::map<std::string, std::string>* mutable_frontend_attributes() {
    return &frontend_attributes_;
  }
  // backend_config as given: JSON or an opaque string.
  const std::string& backend_config() const { return backend_config_; }
  void set_backend_config(std::string c) { backend_config_ = std::move(c); }
  // Sharding as its text ("{replicated}"), empty if none.
  const std::string& sharding() const { return sharding_; }
  void set_sharding(std::string s) { sharding_ = std::move(s); }
  const std::vector<RawAttribute>& raw_attributes() const {
    return raw_attributes_;
  }
  std::vector<RawAttribute>* mutable_raw_attributes() {
    return &raw_attributes_;
  }

  // Elementwise opcode (or a fusion that is) -- see HloOpcodeIsElementwise.
  bool IsElementwise() const;
  // Has effects beyond its result (collectives, infeed, side-effecting
  // custom calls): such instructions are never removed or merged.
  bool HasSideEffect() const;
  bool IsRoot() const;

  // A parentless copy with the same opcode, attributes, called computations
  // and metadata, but the given shape and operands.
  std::unique_ptr<HloInstruction> CloneWithNewOperands(
      const Shape& shape, absl::Span<HloInstruction* const> operands) const;

  // Same opcode, shape, attributes (a custom call's backend_config among
  // them) and called computations (compared by structure via
  // `eq_computations`), ignoring name, operands and metadata. CSE and
  // structural comparison use it.
  bool IdenticalSlowPath(
      const HloInstruction& other,
      const std::function<bool(const HloComputation*, const HloComputation*)>&
          eq_computations) const;

  // "%name = f32[2]{0} add(%a, %b), ..." in XLA's text format, without
  // metadata; for error messages and debugging. The printer (hlo/text) owns
  // the full format.
  std::string ToShortString() const;

 private:
  friend class HloComputation;
  HloInstruction(HloOpcode opcode, const Shape& shape);
  void AddUser(HloInstruction* user);
  void RemoveUser(HloInstruction* user);

  HloOpcode opcode_;
  Shape shape_;
  std::string name_;
  int64_t unique_id_ = -1;
  HloComputation* parent_ = nullptr;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;
  // Membership index of users_, so adding a user is O(1) even for values
  // with many thousands of users.
  absl::flat_hash_set<const HloInstruction*> user_set_;
  std::vector<HloInstruction*> control_predecessors_;
  std::vector<HloInstruction*> control_successors_;
  std::vector<HloComputation*> called_computations_;
  HloAttributes attrs_;
  OpMetadata metadata_;
  std::map<std::string, std::string> frontend_attributes_;
  std::string backend_config_;
  std::string sharding_;
  std::vector<RawAttribute> raw_attributes_;
};

}  // namespace hloc

#endif  // HLO_INSTRUCTION_H_
