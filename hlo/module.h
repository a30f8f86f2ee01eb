// HloModule: the compilation unit. Owns its computations, kept callee-first
// (every computation after the ones it calls), and the module-level
// configuration XLA prints in the header.
#ifndef HLO_MODULE_H_
#define HLO_MODULE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "hlo/attributes.h"
#include "hlo/computation.h"

namespace hloc {

// The debug-info tables XLA prints after the header (FileNames,
// FunctionNames, FileLocations, StackFrames); metadata's stack_frame_id
// indexes StackFrames (1-based).
struct StackFrameIndex {
  struct FileLocation {
    int64_t file_name_id = 0;
    int64_t function_name_id = 0;
    int64_t line = 0;
    int64_t end_line = 0;
    int64_t column = 0;
    int64_t end_column = 0;
    bool operator==(const FileLocation& o) const;
  };
  struct StackFrame {
    int64_t file_location_id = 0;
    int64_t parent_frame_id = 0;
    bool operator==(const StackFrame& o) const {
      return file_location_id == o.file_location_id &&
             parent_frame_id == o.parent_frame_id;
    }
  };
  std::vector<std::string> file_names;
  std::vector<std::string> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<StackFrame> stack_frames;
  bool empty() const {
    return file_names.empty() && function_names.empty() &&
           file_locations.empty() && stack_frames.empty();
  }
  bool operator==(const StackFrameIndex& o) const;
};

// input_output_alias={ {0}: (1, {}, may-alias) }: an output aliases a
// parameter buffer.
struct InputOutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  bool must_alias = false;
  bool operator==(const InputOutputAlias& o) const {
    return output_index == o.output_index &&
           parameter_number == o.parameter_number &&
           parameter_index == o.parameter_index && must_alias == o.must_alias;
  }
};

struct BufferDonor {
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  bool operator==(const BufferDonor& o) const {
    return parameter_number == o.parameter_number &&
           parameter_index == o.parameter_index;
  }
};

// Module-level settings from the header line.
struct HloModuleConfig {
  // Set when the text or proto gave one; else derived from the entry.
  std::optional<ProgramShape> entry_computation_layout;
  bool is_scheduled = false;
  std::vector<InputOutputAlias> input_output_alias;
  std::vector<BufferDonor> buffer_donor;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  std::map<std::string, std::string> frontend_attributes;
  // Header attributes no stage here interprets (printed back as given,
  // e.g. allow_spmd_sharding_propagation_to_output={true}).
  std::vector<RawAttribute> raw_attributes;
};

class HloModule {
 public:
  explicit HloModule(std::string name);
  ~HloModule();
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }

  // Adds a computation; the module names it uniquely, gives every
  // instruction a unique name and id, and keeps the list callee-first as
  // long as callees are added before callers.
  // With `before`, the computation is placed just before that one (so a
  // new callee precedes its caller); otherwise it is appended.
  HloComputation* AddEmbeddedComputation(
      std::unique_ptr<HloComputation> computation,
      const HloComputation* before = nullptr);
  HloComputation* AddEntryComputation(
      std::unique_ptr<HloComputation> computation);
  HloComputation* entry_computation() const { return entry_; }
  void set_entry_computation(HloComputation* entry) { entry_ = entry; }

  // Moves `computation` (of this module) to just before `before`, where
  // AddEmbeddedComputation(..., before) would have put a new one.
  void MoveComputationBefore(HloComputation* computation,
                             const HloComputation* before);
  // Computations in stored (callee-first) order.
  std::vector<HloComputation*> computations() const;
  int64_t computation_count() const {
    return static_cast<int64_t>(computations_.size());
  }
  // A fresh callee-first order of the computations reachable from the
  // entry, then any unreachable ones.
  std::vector<HloComputation*> MakeComputationPostOrder() const;
  // Re-sorts the stored order into MakeComputationPostOrder().
  void SortComputationsInPostOrder();
  HloComputation* GetComputationWithName(absl::string_view name) const;
  // Removes computations no instruction calls and that are not the entry.
  void RemoveUnusedComputations();
  absl::Status RemoveComputation(HloComputation* computation);

  // Fresh names: "base", else "base.1", "base.2", ... never reused.
  std::string UniquifyName(absl::string_view base);
  int64_t NextUniqueId() { return next_unique_id_++; }
  // Claims a name/id chosen elsewhere (the parser keeps the file's names).
  void RegisterName(absl::string_view name);
  void RegisterUniqueId(int64_t id);

  const HloModuleConfig& config() const { return config_; }
  HloModuleConfig& mutable_config() { return config_; }
  const StackFrameIndex& stack_frames() const { return stack_frames_; }
  StackFrameIndex& mutable_stack_frames() { return stack_frames_; }

  // The schedule, if the module is scheduled: per computation, its
  // instructions in execution order.
  bool has_schedule() const { return !schedule_.empty(); }
  const std::map<const HloComputation*, std::vector<HloInstruction*>>&
  schedule() const {
    return schedule_;
  }
  std::map<const HloComputation*, std::vector<HloInstruction*>>&
  mutable_schedule() {
    return schedule_;
  }

  // The entry's signature: config's entry_computation_layout if set, else
  // computed from the entry computation.
  ProgramShape EntryComputationLayout() const;

  // A deep copy of the whole module (same names).
  std::unique_ptr<HloModule> Clone() const;

  // Structural identity: same entry, computations compared structurally in
  // order, same config. Names are ignored.
  bool StructurallyEqual(const HloModule& other) const;

 private:
  std::string name_;
  int64_t unique_id_ = 0;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  HloModuleConfig config_;
  StackFrameIndex stack_frames_;
  std::map<const HloComputation*, std::vector<HloInstruction*>> schedule_;
  // Instruction names are unique across the module; computation names form
  // their own namespace.
  absl::flat_hash_map<std::string, int64_t> name_counters_;
  absl::flat_hash_set<std::string> used_names_;
  absl::flat_hash_map<std::string, int64_t> computation_name_counters_;
  absl::flat_hash_set<std::string> computation_names_;
  int64_t next_unique_id_ = 0;
  absl::flat_hash_set<int64_t> computation_ids_;
  int64_t next_computation_id_ = 0;
};

// True for an f32 dot or convolution whose operands ask for no more than
// default precision (none for HIGHEST): what XLA:GPU on NVIDIA GPUs
// computes with TF32 operands (10 mantissa bits).
bool IsDefaultPrecisionF32Contraction(const HloInstruction& instruction);

// The module frontend attribute ("true") a pass sets when it rewrites a
// default-precision f32 contraction into other instructions (a small dot
// as a multiply and a reduce): the optimised module, which saved
// executables carry, then still says its source had one, which is what
// comparing with a TF32 GPU's outputs needs to know (runtime/compare.h).
inline constexpr char kRewroteDefaultPrecisionF32Contractions[] =
    "hloc_rewrote_default_precision_f32_contractions";

}  // namespace hloc

#endif  // HLO_MODULE_H_
