// Row-reduction fusions (fusion_kinds.h, kRowReduction: softmax, layer
// norm, log-softmax) on the GPU as one kernel.
//
// A group of threads owns a row (launch_dims.h, ComputeRowFusionLaunch:
// a few threads for short rows, several rows per block; up to a block of
// 1024 for long ones). Thread g of the group owns the runs of `vector`
// consecutive elements at (j * group + g) * vector, its "slots": the
// group's accesses to a run are coalesced and each run is one 16-byte
// load or store.
//
// First every row-shaped input that is only read at its own position
// (IsReadAtOwnPositionOnly), or that a reduction reads there
// (IsReducedAtOwnPosition), is loaded, all slots at once so the loads are
// in flight together, into registers; from then on that input's generator
// returns the register of the slot being computed (for a read elsewhere in
// the row, memory: L1). So the row is read from memory once however many
// passes use it. Then, in pass order, each
// reduction accumulates its input (computed from the registers through the
// fused producers) over the thread's slots, combines the group's partial
// results with butterfly shuffles (and, for groups larger than a warp,
// through shared memory, every thread combining the warps' results in the
// same order, so every thread holds the same value), and binds the result
// as the reduction's value for everything after it, as the CPU's row
// fusion emitter does. A last pass writes the full outputs slot by slot
// (16-byte stores) and the group's first thread the per-row outputs.
//
// With a concatenate hero (fusion_kinds.h, FindRowConcatenateHero) the
// last pass walks each of the concatenate's operands' piece of the row in
// runs instead, every run from one operand (EmitHeroOutput).
//
// Threads past the last row compute the last row again and store nothing:
// the shuffles and the barrier need every thread of the block.
#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/common/loop_emitter.h"
#include "backends/common/row_fusion.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Module.h"
#include "passes/fusion/fusion_kinds.h"

namespace hloc {
namespace {

// Registers a thread may spend on kept inputs (32-bit words); inputs beyond
// are read again from memory (L1/L2) in each pass. 64 leaves room for the
// computation at 2048 resident threads per SM (65536 registers).
constexpr int64_t kMaxKeptWords = 64;

class RowFusionKernel {
 public:
  RowFusionKernel(const KernelRequest& request, const RowReductionInfo& rows,
                  const RowFusionLaunch& launch, KernelBuilder& kernel)
      : request_(request), rows_(rows), launch_(launch), kernel_(kernel) {}

  absl::Status Emit();

 private:
  // Loads the kept inputs into registers and binds their generators.
  absl::Status KeepInputs();
  absl::Status EmitReduction(const HloInstruction* reduce);
  // Computes, at the row, every per-row value whose reductions are done
  // and binds it: once per row instead of once per element. An epilogue
  // through a concatenate or pad asks for it in a branch per operand,
  // where LLVM would not hoist it (an rsqrt per element).
  absl::Status BindPerRowValues();
  // Builds, before the first pass (so they dominate every use), the index
  // of each slot in arrays of `shape`'s dimensions.
  void AddSlotIndices(const Shape& shape);
  // That index. Reads through elementwise ops pass on its very llvm::Values,
  // by which a kept input's generator knows a read of its own slot.
  absl::StatusOr<IrIndex> SlotIndex(const Shape& shape, int64_t s) const;
  // acc = combine(acc, group's other threads' accs), for every thread.
  absl::Status GroupReduce(const HloInstruction* reduce, llvm::Type* type,
                           llvm::Value* acc);
  absl::Status EmitOutputs();
  // The output pass of a fusion with a concatenate hero
  // (FindRowConcatenateHero): the group walks each operand's piece of the
  // row in runs, so that a run's elements come from one operand, and writes
  // each element at its position in the output.
  absl::Status EmitHeroOutput(const HloInstruction* concat);
  // Runs `body(slot)` for every slot of this thread, each inside a bounds
  // check where the row does not fill every slot.
  absl::Status ForEachSlot(const std::function<absl::Status(int64_t)>& body);
  // The byte alignment of every run of an array of `shape`, or 0 where its
  // runs are not accessed as one vector: a row-major array's runs are
  // contiguous and start at multiples of `vector` elements (the row length
  // is one), in buffers aligned to 16 bytes, so each is one 16-byte access
  // (IrArray::EmitReadRun / EmitWriteRun).
  uint64_t RunAlignment(const Shape& shape) const;

  const KernelRequest& request_;
  const RowReductionInfo& rows_;
  const RowFusionLaunch& launch_;
  KernelBuilder& kernel_;
  llvm::Value* tid_ = nullptr;
  llvm::Value* in_group_ = nullptr;  // thread's index in its group
  llvm::Value* row_in_block_ = nullptr;
  llvm::Value* row_ = nullptr;           // clamped to the last row
  llvm::Value* row_valid_ = nullptr;     // nullptr: always
  std::vector<llvm::Value*> positions_;  // per slot, in the row
  // The slot being computed, for the kept inputs' generators (-1: none).
  std::shared_ptr<int64_t> current_slot_ = std::make_shared<int64_t>(-1);
  // Values that depend on a reduction, and those of them computed per row
  // and bound (the emitted reductions among them).
  absl::flat_hash_set<const HloInstruction*> dependents_;
  absl::flat_hash_set<const HloInstruction*> bound_;
  // Each slot's linear position in a full value (row * row_length +
  // position), and per dimensions each slot's index (AddSlotIndices).
  std::vector<llvm::Value*> slot_linear_;
  std::vector<std::pair<std::vector<int64_t>, std::vector<IrIndex>>>
      slot_indices_;
};

void RowFusionKernel::AddSlotIndices(const Shape& shape) {
  for (const auto& [dims, indices] : slot_indices_) {
    if (dims == shape.dimensions()) return;
  }
  RowIndexer indexer(shape, rows_.rows.row_length, row_, kernel_.index_type(),
                     kernel_.b());
  // The slot's linear position is a row-major one: an array of these
  // dimensions in another layout (a parameter's {0,2,1}) must not take it
  // as its own offset, so the index says which layout it holds for.
  const Shape row_major =
      Shape::Array(shape.element_type(), shape.dimensions());
  std::vector<IrIndex> indices;
  for (size_t s = 0; s < positions_.size(); ++s) {
    // Every shape's index of a slot shares the slot's linear position, which
    // reshapes between row-major arrays pass on.
    indices.emplace_back(indexer.At(positions_[s], kernel_.b()).multidim(),
                         slot_linear_[s], row_major, kernel_.index_type());
  }
  slot_indices_.emplace_back(shape.dimensions(), std::move(indices));
}

absl::StatusOr<IrIndex> RowFusionKernel::SlotIndex(const Shape& shape,
                                                   int64_t s) const {
  for (const auto& [dims, indices] : slot_indices_) {
    if (dims == shape.dimensions()) return indices[s];
  }
  return absl::InternalError(
      absl::StrCat("codegen: no slot indices for ", shape.ToString(),
                   " (Emit adds every shape a pass indexes)"));
}

absl::Status RowFusionKernel::ForEachSlot(
    const std::function<absl::Status(int64_t)>& body) {
  llvm::IRBuilderBase* b = kernel_.b();
  const int64_t length = rows_.rows.row_length;
  const bool full = length % (launch_.vector * launch_.threads_per_row) == 0;
  for (int64_t s = 0; s < static_cast<int64_t>(positions_.size()); ++s) {
    *current_slot_ = s;
    auto visit = [&]() { return body(s); };
    absl::Status status =
        full ? visit()
             : EmitIfThenElse(
                   b->CreateICmpULT(positions_[s], kernel_.Index(length)),
                   visit, nullptr, b);
    *current_slot_ = -1;
    HLOC_RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

uint64_t RowFusionKernel::RunAlignment(const Shape& shape) const {
  if (launch_.vector == 1 || !shape.HasDescendingLayout()) return 0;
  return static_cast<uint64_t>(launch_.vector *
                               ByteWidth(shape.element_type()));
}

absl::Status RowFusionKernel::KeepInputs() {
  llvm::IRBuilderBase* b = kernel_.b();
  const HloComputation* fused = request_.info->hlo->fused_computation();
  const int64_t full = rows_.rows.num_rows * rows_.rows.row_length;
  int64_t words = 0;
  for (const HloInstruction* p : fused->parameter_instructions()) {
    const bool only = IsReadAtOwnPositionOnly(p, full);
    if (!only && !IsReducedAtOwnPosition(p, full)) continue;
    const int64_t bytes = ByteWidth(p->shape().element_type());
    const int64_t cost = static_cast<int64_t>(positions_.size()) *
                         std::max<int64_t>(1, bytes / 4);
    if (words + cost > kMaxKeptWords) continue;
    words += cost;
    const IrArray& array = kernel_.generators().inputs()[p->parameter_number()];
    auto slots =
        std::make_shared<std::vector<llvm::Value*>>(positions_.size(), nullptr);
    llvm::Type* type = nullptr;
    const uint64_t alignment = RunAlignment(p->shape());
    HLOC_RETURN_IF_ERROR(ForEachSlot([&](int64_t s) -> absl::Status {
      // A run is read whole at its first slot.
      if (alignment != 0 && s % launch_.vector != 0) return absl::OkStatus();
      std::vector<llvm::Value*> values;
      HLOC_ASSIGN_OR_RETURN(const IrIndex index, SlotIndex(p->shape(), s));
      if (alignment != 0) {
        HLOC_ASSIGN_OR_RETURN(
            values, array.EmitReadRun(index, launch_.vector, alignment, b));
      } else {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v, array.EmitRead(index, b));
        values.push_back(v);
      }
      for (size_t k = 0; k < values.size(); ++k) {
        type = values[k]->getType();
        (*slots)[s + k] =
            EmitAllocaAtEntry(type, absl::StrCat(p->name(), ".reg"), b);
        b->CreateStore(values[k], (*slots)[s + k]);
      }
      return absl::OkStatus();
    }));
    if (type == nullptr) continue;  // No slots: an empty row.
    std::shared_ptr<int64_t> current = current_slot_;
    if (only) {
      kernel_.generators().Bind(
          p,
          [slots, current, type, array,
           b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
            // Outside the slots (a concatenate hero's pass): from memory.
            if (*current < 0) return array.EmitRead(index, b);
            return b->CreateLoad(type, (*slots)[*current]);
          });
      continue;
    }
    // Also read elsewhere (through a slice or concatenate within the row, or
    // at another row through an invariant op): the register serves a read
    // of the slot's own element, recognized by its index's llvm::Values
    // (the reductions read their slots' elements through elementwise ops,
    // which pass the slot index on, and reshapes pass on its linear
    // position), memory (L1) every other.
    std::vector<IrIndex> own;
    for (size_t k = 0; k < positions_.size(); ++k) {
      HLOC_ASSIGN_OR_RETURN(IrIndex index, SlotIndex(p->shape(), k));
      own.push_back(std::move(index));
    }
    kernel_.generators().Bind(
        p,
        [slots, current, type, array, own = std::move(own),
         b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          if (*current >= 0 && (index.multidim() == own[*current].multidim() ||
                                (index.linear() == own[*current].linear() &&
                                 index.LinearValidOn(array.shape())))) {
            return b->CreateLoad(type, (*slots)[*current]);
          }
          return array.EmitRead(index, b);
        });
  }
  return absl::OkStatus();
}

absl::Status RowFusionKernel::GroupReduce(const HloInstruction* reduce,
                                          llvm::Type* type, llvm::Value* acc) {
  llvm::IRBuilderBase* b = kernel_.b();
  auto combine = [&](llvm::Value* other) -> absl::Status {
    HLOC_ASSIGN_OR_RETURN(
        llvm::Value * next,
        kernel_.elemental()->EmitScalarComputation(
            reduce->to_apply(), {b->CreateLoad(type, acc), other}));
    b->CreateStore(next, acc);
    return absl::OkStatus();
  };
  const int64_t warp = request_.target->device().warp_size;
  const int64_t group = launch_.threads_per_row;
  // Lane order (ButterflyOperands): every lane of the row then holds the
  // same result, which its elementwise consumers read.
  for (int mask = 1; mask < std::min(group, warp); mask *= 2) {
    llvm::Value* own = b->CreateLoad(type, acc);
    HLOC_ASSIGN_OR_RETURN(
        llvm::Value * next,
        kernel_.elemental()->EmitScalarComputation(
            reduce->to_apply(),
            ButterflyOperands(kernel_, *reduce->to_apply(), mask, {own},
                              {ShuffleXor(kernel_, own, mask)})));
    b->CreateStore(next, acc);
  }
  if (group <= warp) return absl::OkStatus();
  // Each warp's result to shared memory; every thread of the row then
  // combines the row's warps in the same order.
  const int64_t warps = group / warp;
  llvm::GlobalVariable* partial =
      SharedArray(kernel_, type, launch_.rows_per_block * warps,
                  absl::StrCat(reduce->name(), ".partial"));
  llvm::Value* first = b->CreateMul(row_in_block_, kernel_.Index(warps));
  HLOC_RETURN_IF_ERROR(EmitIfThenElse(
      b->CreateICmpEQ(b->CreateURem(tid_, kernel_.Index(warp)),
                      kernel_.Index(0)),
      [&]() -> absl::Status {
        b->CreateStore(
            b->CreateLoad(type, acc),
            SharedElement(
                kernel_, partial,
                b->CreateAdd(first,
                             b->CreateUDiv(in_group_, kernel_.Index(warp)))));
        return absl::OkStatus();
      },
      nullptr, b));
  kernel_.target().EmitBarrier(b);
  b->CreateStore(b->CreateLoad(type, SharedElement(kernel_, partial, first)),
                 acc);
  for (int64_t w = 1; w < warps; ++w) {
    HLOC_RETURN_IF_ERROR(combine(b->CreateLoad(
        type, SharedElement(kernel_, partial,
                            b->CreateAdd(first, kernel_.Index(w))))));
  }
  return absl::OkStatus();
}

absl::Status RowFusionKernel::EmitReduction(const HloInstruction* reduce) {
  llvm::IRBuilderBase* b = kernel_.b();
  const HloInstruction* input = reduce->operand(0);
  HLOC_ASSIGN_OR_RETURN(ElementGenerator input_gen,
                        kernel_.generators().Get(input));
  HLOC_ASSIGN_OR_RETURN(ElementGenerator init_gen,
                        kernel_.generators().Get(reduce->operand(1)));
  HLOC_ASSIGN_OR_RETURN(
      llvm::Type * type,
      RegisterType(reduce->shape().element_type(), b->getContext()));
  HLOC_ASSIGN_OR_RETURN(llvm::Value * init,
                        init_gen(IrIndex::Scalar(kernel_.index_type())));
  llvm::Value* acc = EmitAllocaAtEntry(type, "acc", b);
  b->CreateStore(init, acc);
  HLOC_RETURN_IF_ERROR(ForEachSlot([&](int64_t s) -> absl::Status {
    HLOC_ASSIGN_OR_RETURN(IrIndex index, SlotIndex(input->shape(), s));
    HLOC_ASSIGN_OR_RETURN(llvm::Value * x, input_gen(index));
    HLOC_ASSIGN_OR_RETURN(
        llvm::Value * next,
        kernel_.elemental()->EmitScalarComputation(
            reduce->to_apply(), {b->CreateLoad(type, acc), x}));
    b->CreateStore(next, acc);
    return absl::OkStatus();
  }));
  HLOC_RETURN_IF_ERROR(GroupReduce(reduce, type, acc));
  llvm::Value* value = b->CreateLoad(type, acc, reduce->name());
  kernel_.generators().Bind(
      reduce, [value](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
        return value;
      });
  bound_.insert(reduce);
  return BindPerRowValues();
}

absl::Status RowFusionKernel::BindPerRowValues() {
  llvm::IRBuilderBase* b = kernel_.b();
  const HloComputation* fused = request_.info->hlo->fused_computation();
  for (const HloInstruction* instr : fused->MakeInstructionPostOrder()) {
    if (!dependents_.contains(instr) || bound_.contains(instr) ||
        (instr->opcode() == HloOpcode::kReduce && !IsTrivialReduce(*instr)) ||
        !instr->shape().IsArray() ||
        instr->shape().ElementCount() != rows_.rows.num_rows) {
      continue;
    }
    bool ready = true;
    for (const HloInstruction* operand : instr->operands()) {
      ready &= !dependents_.contains(operand) || bound_.contains(operand);
    }
    if (!ready) continue;
    // One element per row: the row's element is the one at any index of
    // this row (a per-row value, or a piece of one element of each row).
    HLOC_ASSIGN_OR_RETURN(ElementGenerator g, kernel_.generators().Get(instr));
    HLOC_ASSIGN_OR_RETURN(llvm::Value * value,
                          g(IrIndex::FromLinear(row_, instr->shape(), b)));
    kernel_.generators().Bind(
        instr, [value](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
          return value;
        });
    bound_.insert(instr);
  }
  return absl::OkStatus();
}

absl::Status RowFusionKernel::EmitOutputs() {
  llvm::IRBuilderBase* b = kernel_.b();
  const KernelInfo& info = *request_.info;
  const int64_t length = rows_.rows.row_length;
  const int64_t full = rows_.rows.num_rows * length;
  std::vector<std::pair<size_t, ElementGenerator>> full_outputs;
  std::vector<std::pair<size_t, ElementGenerator>> row_outputs;
  for (size_t o = 0; o < info.outputs.size(); ++o) {
    HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                          kernel_.generators().ForOutput(info.outputs[o]));
    const Shape& shape = info.output_shapes[o];
    if (shape.ElementCount() == full) {
      full_outputs.emplace_back(o, std::move(g));
    } else {
      row_outputs.emplace_back(o, std::move(g));
    }
  }
  HLOC_RETURN_IF_ERROR(ForEachSlot([&](int64_t s) -> absl::Status {
    for (size_t i = 0; i < full_outputs.size(); ++i) {
      const IrArray& output = kernel_.output(full_outputs[i].first);
      const uint64_t alignment = RunAlignment(output.shape());
      HLOC_ASSIGN_OR_RETURN(const IrIndex index, SlotIndex(output.shape(), s));
      if (alignment == 0) {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v, full_outputs[i].second(index));
        HLOC_RETURN_IF_ERROR(output.EmitWrite(index, v, b));
        continue;
      }
      // A run is computed and written whole at its first slot (its bounds
      // check covers the run); the kept inputs' generators follow the slot
      // being computed.
      if (s % launch_.vector != 0) continue;
      std::vector<llvm::Value*> values;
      for (int64_t k = 0; k < launch_.vector; ++k) {
        HLOC_ASSIGN_OR_RETURN(const IrIndex element,
                              SlotIndex(output.shape(), s + k));
        *current_slot_ = s + k;
        absl::StatusOr<llvm::Value*> v = full_outputs[i].second(element);
        *current_slot_ = s;
        if (!v.ok()) return v.status();
        values.push_back(*v);
      }
      HLOC_RETURN_IF_ERROR(output.EmitWriteRun(index, values, alignment, b));
    }
    return absl::OkStatus();
  }));
  if (row_outputs.empty()) return absl::OkStatus();
  return EmitIfThenElse(
      b->CreateICmpEQ(in_group_, kernel_.Index(0)),
      [&]() -> absl::Status {
        for (auto& [o, g] : row_outputs) {
          IrIndex index = IrIndex::FromLinear(row_, info.output_shapes[o], b);
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
          HLOC_RETURN_IF_ERROR(kernel_.output(o).EmitWrite(index, v, b));
        }
        return absl::OkStatus();
      },
      nullptr, b);
}

absl::Status RowFusionKernel::EmitHeroOutput(const HloInstruction* concat) {
  llvm::IRBuilderBase* b = kernel_.b();
  const KernelInfo& info = *request_.info;
  const Shape& output_shape = info.output_shapes[0];
  const IrArray& output = kernel_.output(0);
  const Shape& concat_shape = concat->shape();
  const int64_t dim = concat->dimensions(0);
  const int64_t num_rows = rows_.rows.num_rows;
  const int64_t group = launch_.threads_per_row;
  // Elements of the concatenate after one step along `dim`.
  int64_t after = 1;
  for (int64_t d = dim + 1; d < concat_shape.rank(); ++d) {
    after *= concat_shape.dimensions(d);
  }
  HLOC_ASSIGN_OR_RETURN(ConcatenateHero hero,
                        ConcatenateHero::Bind(concat, kernel_));
  HLOC_ASSIGN_OR_RETURN(ElementGenerator root,
                        kernel_.generators().ForOutput(info.outputs[0]));
  int64_t offset = 0;
  for (size_t j = 0; j < hero.operand_count(); ++j) {
    const Shape& shape = concat->operand(j)->shape();
    const int64_t this_offset = offset;
    offset += shape.dimensions(dim);
    const int64_t piece = shape.ElementCount() / num_rows;
    if (piece == 0) continue;
    // A run of the operand is a run of the output when it cannot straddle
    // the operand's blocks along `dim` (and the row's runs start aligned).
    int64_t vector = launch_.vector;
    while (vector > 1 && (piece % vector != 0 ||
                          (shape.dimensions(dim) * after) % vector != 0 ||
                          (this_offset * after) % vector != 0)) {
      vector /= 2;
    }
    const uint64_t alignment =
        vector > 1 && RunAlignment(output_shape) != 0
            ? static_cast<uint64_t>(vector *
                                    ByteWidth(output_shape.element_type()))
            : 0;
    RowIndexer indexer(shape, piece, row_, kernel_.index_type(), b);
    const int64_t runs = CeilOfRatio(piece, vector);
    const int64_t steps = CeilOfRatio(runs, group);
    for (int64_t i = 0; i < steps; ++i) {
      llvm::Value* start = b->CreateMul(
          b->CreateAdd(kernel_.Index(i * group), in_group_, "", true, true),
          kernel_.Index(vector), "", true, true);
      auto write_run = [&]() -> absl::Status {
        std::vector<llvm::Value*> values;
        IrIndex first;
        for (int64_t k = 0; k < vector; ++k) {
          const IrIndex index = indexer.At(
              k == 0 ? start
                     : b->CreateAdd(start, kernel_.Index(k), "", true, true),
              b);
          // Its element's linear position in the concatenate is the
          // output's (FindRowConcatenateHero).
          llvm::Value* linear =
              PositionInConcatenate(concat, this_offset, index, kernel_);
          const IrIndex out = IrIndex::FromLinear(linear, output_shape, b);
          hero.Select(j, index);
          HLOC_ASSIGN_OR_RETURN(llvm::Value * value, root(out));
          if (alignment == 0) {
            HLOC_RETURN_IF_ERROR(output.EmitWrite(out, value, b));
            continue;
          }
          if (k == 0) first = out;
          values.push_back(value);
        }
        if (alignment == 0) return absl::OkStatus();
        return output.EmitWriteRun(first, values, alignment, b);
      };
      const bool full = runs % group == 0 || i + 1 < steps;
      if (full) {
        HLOC_RETURN_IF_ERROR(write_run());
      } else {
        HLOC_RETURN_IF_ERROR(
            EmitIfThenElse(b->CreateICmpULT(start, kernel_.Index(piece)),
                           write_run, nullptr, b));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status RowFusionKernel::Emit() {
  llvm::IRBuilderBase* b = kernel_.b();
  const int64_t group = launch_.threads_per_row;
  const int64_t num_rows = rows_.rows.num_rows;
  tid_ = kernel_.ThreadId(0);
  in_group_ = b->CreateURem(tid_, kernel_.Index(group), "in_group");
  row_in_block_ = b->CreateUDiv(tid_, kernel_.Index(group), "row_in_block");
  llvm::Value* row = b->CreateAdd(
      b->CreateMul(kernel_.BlockId(0), kernel_.Index(launch_.rows_per_block),
                   "", true, true),
      row_in_block_, "", true, true);
  if (num_rows % launch_.rows_per_block != 0) {
    row_valid_ = b->CreateICmpULT(row, kernel_.Index(num_rows));
    row = b->CreateSelect(row_valid_, row, kernel_.Index(num_rows - 1));
  }
  row_ = row;
  for (int64_t j = 0; j < launch_.vectors_per_thread; ++j) {
    llvm::Value* run = b->CreateMul(
        b->CreateAdd(kernel_.Index(j * group), in_group_, "", true, true),
        kernel_.Index(launch_.vector), "", true, true);
    for (int64_t i = 0; i < launch_.vector; ++i) {
      positions_.push_back(
          i == 0 ? run : b->CreateAdd(run, kernel_.Index(i), "", true, true));
    }
  }
  const HloComputation* fused = request_.info->hlo->fused_computation();
  dependents_ = DependentsOfReductions(*fused, rows_.reductions);
  const int64_t full = num_rows * rows_.rows.row_length;
  llvm::Value* row_start =
      b->CreateMul(row_, kernel_.Index(rows_.rows.row_length), "", true, true);
  for (llvm::Value* position : positions_) {
    slot_linear_.push_back(b->CreateAdd(row_start, position, "", true, true));
  }
  for (const HloInstruction* p : fused->parameter_instructions()) {
    if (p->shape().IsArray() && p->shape().ElementCount() == full) {
      AddSlotIndices(p->shape());
    }
  }
  for (const HloInstruction* reduce : rows_.reductions) {
    AddSlotIndices(reduce->operand(0)->shape());
  }
  for (const Shape& shape : request_.info->output_shapes) {
    if (shape.ElementCount() == full) AddSlotIndices(shape);
  }
  HLOC_RETURN_IF_ERROR(KeepInputs());
  for (const HloInstruction* reduce : rows_.reductions) {
    HLOC_RETURN_IF_ERROR(EmitReduction(reduce));
  }
  const HloInstruction* hero = FindRowConcatenateHero(*fused);
  auto outputs = [&]() {
    return hero != nullptr ? EmitHeroOutput(hero) : EmitOutputs();
  };
  if (row_valid_ == nullptr) return outputs();
  return EmitIfThenElse(row_valid_, outputs, nullptr, b);
}

}  // namespace

bool IsRowFusion(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kFusion) return false;
  const FusionShape shape = GetFusionShape(hlo);
  if (shape == FusionShape::kRowReduction) return true;
  if (shape != FusionShape::kReduction) return false;
  // A reduction fusion over rows that fit a block is the simplest row
  // fusion (one reduction, no epilogue): this kernel's 16-byte loads, all
  // in flight at once, and several rows per warp for short rows beat the
  // general reduction kernel's one element per thread and step.
  absl::StatusOr<RowReductionInfo> rows =
      AnalyzeRowReduction(*hlo.fused_computation());
  if (!rows.ok()) return false;
  for (const HloInstruction* reduce : rows->reductions) {
    if (!RowFitsInBlock(rows->rows,
                        reduce->operand(0)->shape().element_type())) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<LaunchDims> EmitRowFusionKernel(const KernelRequest& request) {
  const KernelInfo& info = *request.info;
  absl::StatusOr<RowReductionInfo> rows =
      AnalyzeRowReduction(*info.hlo->fused_computation());
  if (!rows.ok())
    return CodegenUnimplemented(*info.hlo, rows.status().message());
  const int64_t full = rows->rows.num_rows * rows->rows.row_length;
  int64_t widest = 1;
  for (const std::vector<Shape>* shapes :
       {&info.input_shapes, &info.output_shapes}) {
    for (const Shape& s : *shapes) {
      if (s.ElementCount() == full) {
        widest = std::max<int64_t>(widest, ByteWidth(s.element_type()));
      }
    }
  }
  RowFusionLaunch launch =
      ComputeRowFusionLaunch(rows->rows.num_rows, rows->rows.row_length, widest,
                             request.target->device());
  bool index64 =
      !Use32BitIndexing(MaxElementsTouched(info),
                        launch.dims.NumBlocks() * launch.threads_per_block *
                            launch.vectors_per_thread * launch.vector);
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status =
      launch.dims.NumBlocks() == 0
          ? absl::OkStatus()
          : RowFusionKernel(request, *rows, launch, kernel).Emit();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc
