#include "backends/cpu/row_fusion_emitter.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/loop_emitter.h"
#include "backends/common/row_fusion.h"
#include "backends/cpu/ir_emitter.h"
#include "backends/cpu/streaming_store.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "passes/fusion/fusion_kinds.h"

namespace hloc {
namespace {

// At most this many bytes of row cache per thread (a row is at most
// kMaxRowBytes, 128 KiB); further reduction inputs are recomputed instead.
// Stack memory: 256 KiB leaves room in a worker thread's stack.
constexpr int64_t kMaxRowCacheBytes = 256 * 1024;

// Elements of a streamed output staged at a time (2 KiB of f32).
constexpr int64_t kStageElements = 512;

// How many rows ahead the inputs are prefetched (EmitPrefetchAhead).
constexpr int64_t kPrefetchRows = 2;

struct RowOutput {
  const HloInstruction* root;
  IrArray array;
  bool full;  // else per-row: one element per row
  // A full output written with streaming stores: its row is staged here.
  llvm::Value* stage = nullptr;
};

class RowFusionEmitter {
 public:
  RowFusionEmitter(const HloInstruction& fusion, RowReductionInfo info,
                   const OpEmitterContext& ctx)
      : fusion_(fusion), info_(std::move(info)), ctx_(ctx) {}

  absl::Status Emit(const std::string& symbol);

 private:
  absl::Status EmitRow(llvm::Value* row);
  // Prefetches the row after next of every full input into L2. The first
  // pass over a row is the only one that reads memory; without this,
  // memory idles while the later passes work from L1, and the hardware
  // prefetcher only runs ahead of demand loads. Two rows ahead leaves a
  // whole row's work for the lines to arrive.
  void EmitPrefetchAhead(llvm::Value* row);
  absl::Status EmitReductionPass(const HloInstruction* reduce,
                                 llvm::Value* row);
  absl::Status EmitOutputPass(llvm::Value* row);
  // A row buffer for `hlo`'s values, or nullptr when it should not be
  // cached (not a row value, not used again, or no room).
  absl::StatusOr<llvm::Value*> RowCacheFor(const HloInstruction* hlo,
                                           const HloInstruction* reduce);

  const HloInstruction& fusion_;
  RowReductionInfo info_;
  const OpEmitterContext& ctx_;
  llvm::IRBuilderBase* b_ = nullptr;
  ElementalEmitter* elemental_ = nullptr;
  FusedIrEmitter* fused_ = nullptr;
  // Values that depend on a reduction: the only ones the row cache holds.
  absl::flat_hash_set<const HloInstruction*> row_values_;
  std::vector<IrArray> inputs_;
  std::vector<RowOutput> outputs_;
  bool streams_ = false;  // some output is streamed
  int64_t cache_bytes_ = 0;
};

absl::StatusOr<llvm::Value*> RowFusionEmitter::RowCacheFor(
    const HloInstruction* hlo, const HloInstruction* reduce) {
  if (!row_values_.contains(hlo) || !HasOtherUsers(hlo, reduce)) {
    return nullptr;
  }
  HLOC_ASSIGN_OR_RETURN(
      llvm::Type * type,
      RegisterType(hlo->shape().element_type(), b_->getContext()));
  const int64_t bytes =
      info_.rows.row_length * ByteWidth(hlo->shape().element_type());
  if (cache_bytes_ + bytes > kMaxRowCacheBytes) return nullptr;
  cache_bytes_ += bytes;
  llvm::Type* array = llvm::ArrayType::get(type, info_.rows.row_length);
  auto* cache = llvm::cast<llvm::AllocaInst>(
      EmitAllocaAtEntry(array, absl::StrCat(hlo->name(), ".row"), b_));
  cache->setAlignment(llvm::Align(64));
  return cache;
}

absl::Status RowFusionEmitter::EmitReductionPass(const HloInstruction* reduce,
                                                 llvm::Value* row) {
  llvm::IRBuilderBase* b = b_;
  const HloInstruction* input = reduce->operand(0);
  HLOC_ASSIGN_OR_RETURN(ElementGenerator input_gen,
                        fused_->GetGenerator(input));
  HLOC_ASSIGN_OR_RETURN(ElementGenerator init_gen,
                        fused_->GetGenerator(reduce->operand(1)));
  HLOC_ASSIGN_OR_RETURN(
      llvm::Type * type,
      RegisterType(reduce->shape().element_type(), b->getContext()));
  HLOC_ASSIGN_OR_RETURN(llvm::Value * init,
                        init_gen(IrIndex::Scalar(b->getInt64Ty())));
  llvm::Value* acc = EmitAllocaAtEntry(type, "acc", b);
  b->CreateStore(init, acc);
  HLOC_ASSIGN_OR_RETURN(llvm::Value * cache, RowCacheFor(input, reduce));
  llvm::Type* cache_type = cache == nullptr
                               ? nullptr
                               : llvm::cast<llvm::AllocaInst>(cache)
                                     ->getAllocatedType()
                                     ->getArrayElementType();
  RowIndexer indexer(input->shape(), info_.rows.row_length, row,
                     b->getInt64Ty(), b);
  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "reduce", b->getInt64(0), b->getInt64(info_.rows.row_length),
      b->getInt64(1),
      [&](llvm::Value* c) -> absl::Status {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * x, input_gen(indexer.At(c, b)));
        if (cache != nullptr) {
          b->CreateStore(x, b->CreateInBoundsGEP(cache_type, cache, c));
        }
        llvm::IRBuilderBase::FastMathFlagGuard guard(*b);
        b->setFastMathFlags(ReductionFastMathFlags(*reduce->to_apply()));
        HLOC_ASSIGN_OR_RETURN(
            llvm::Value * next,
            elemental_->EmitScalarComputation(reduce->to_apply(),
                                              {b->CreateLoad(type, acc), x}));
        b->CreateStore(next, acc);
        return absl::OkStatus();
      },
      b));
  // The row's result, for everything computed after this pass.
  llvm::Value* value = b->CreateLoad(type, acc, reduce->name());
  fused_->BindInstruction(
      reduce, [value](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
        return value;
      });
  if (cache != nullptr) {
    fused_->BindInstruction(
        input,
        [cache, cache_type, indexer,
         b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          return b->CreateLoad(
              cache_type,
              b->CreateInBoundsGEP(cache_type, cache,
                                   indexer.PositionInRow(index, b)));
        });
  }
  return absl::OkStatus();
}

absl::Status RowFusionEmitter::EmitOutputPass(llvm::Value* row) {
  llvm::IRBuilderBase* b = b_;
  std::vector<std::pair<ElementGenerator, RowIndexer>> full;
  std::vector<const RowOutput*> full_outputs;
  for (const RowOutput& o : outputs_) {
    HLOC_ASSIGN_OR_RETURN(ElementGenerator g, fused_->GetGenerator(o.root));
    if (o.full) {
      full.emplace_back(std::move(g),
                        RowIndexer(o.array.shape(), info_.rows.row_length, row,
                                   b->getInt64Ty(), b));
      full_outputs.push_back(&o);
      continue;
    }
    IrIndex index = IrIndex::FromLinear(row, o.array.shape(), b);
    HLOC_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
    HLOC_RETURN_IF_ERROR(o.array.EmitWrite(index, v, b));
  }
  if (full.empty()) return absl::OkStatus();
  // The row is written in chunks; a streamed output's chunk goes to its
  // stage buffer, then is copied out. (Chunks keep the stage buffers small
  // enough to stay in L1 beside the row cache.)
  const int64_t length = info_.rows.row_length;
  const int64_t chunk = streams_ ? std::min(length, kStageElements) : length;
  llvm::Value* row_start =
      b->CreateMul(row, b->getInt64(length), "", true, true);
  return EmitForLoop(
      "chunk", b->getInt64(0), b->getInt64(length), b->getInt64(chunk),
      [&](llvm::Value* c0) -> absl::Status {
        llvm::Value* c1 = b->CreateBinaryIntrinsic(
            llvm::Intrinsic::umin,
            b->CreateAdd(c0, b->getInt64(chunk), "", true, true),
            b->getInt64(length));
        llvm::Value* start = b->CreateAdd(row_start, c0, "", true, true);
        std::vector<IrArray> targets;
        for (const RowOutput* o : full_outputs) {
          targets.push_back(
              o->stage == nullptr
                  ? o->array
                  : IrArray::Window(o->stage, o->array.shape(), start));
        }
        HLOC_RETURN_IF_ERROR(EmitForLoop(
            "write", c0, c1, b->getInt64(1),
            [&](llvm::Value* c) -> absl::Status {
              for (size_t i = 0; i < full.size(); ++i) {
                IrIndex index = full[i].second.At(c, b);
                HLOC_ASSIGN_OR_RETURN(llvm::Value * v, full[i].first(index));
                HLOC_RETURN_IF_ERROR(targets[i].EmitWrite(index, v, b));
              }
              return absl::OkStatus();
            },
            b));
        for (const RowOutput* o : full_outputs) {
          if (o->stage == nullptr) continue;
          EmitStreamOut(o->array, start, b->CreateSub(c1, c0, "", true, true),
                        o->stage, b);
        }
        return absl::OkStatus();
      },
      b);
}

void RowFusionEmitter::EmitPrefetchAhead(llvm::Value* row) {
  llvm::IRBuilderBase* b = b_;
  const int64_t full_elements = info_.rows.num_rows * info_.rows.row_length;
  std::vector<const IrArray*> inputs;
  for (const IrArray& input : inputs_) {
    if (input.shape().ElementCount() == full_elements) {
      inputs.push_back(&input);
    }
  }
  if (inputs.empty()) return;
  llvm::Value* next =
      b->CreateAdd(row, b->getInt64(kPrefetchRows), "", true, true);
  absl::Status ignored = EmitIfThenElse(
      b->CreateICmpULT(next, b->getInt64(info_.rows.num_rows)),
      [&]() -> absl::Status {
        for (const IrArray* input : inputs) {
          const int64_t row_bytes =
              info_.rows.row_length * ByteWidth(input->shape().element_type());
          llvm::Value* start = b->CreateGEP(
              b->getInt8Ty(), input->base(),
              b->CreateMul(next, b->getInt64(row_bytes), "", true, true));
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "prefetch", b->getInt64(0), b->getInt64(row_bytes),
              b->getInt64(64),
              [&](llvm::Value* offset) {
                // Read, locality 2 (into L2: the row waits there while this
                // row is computed from L1), data cache.
                b->CreateIntrinsic(
                    llvm::Intrinsic::prefetch, {b->getPtrTy()},
                    {b->CreateGEP(b->getInt8Ty(), start, offset),
                     b->getInt32(0), b->getInt32(2), b->getInt32(1)});
                return absl::OkStatus();
              },
              b));
        }
        return absl::OkStatus();
      },
      nullptr, b);
  (void)ignored;  // The bodies cannot fail.
}

absl::Status RowFusionEmitter::EmitRow(llvm::Value* row) {
  EmitPrefetchAhead(row);
  for (const HloInstruction* reduce : info_.reductions) {
    HLOC_RETURN_IF_ERROR(EmitReductionPass(reduce, row));
  }
  return EmitOutputPass(row);
}

absl::Status RowFusionEmitter::Emit(const std::string& symbol) {
  llvm::Module* module = ctx_.module;
  const HloComputation* fused = fusion_.fused_computation();
  std::vector<const HloInstruction*> roots;
  const HloInstruction* root = fused->root_instruction();
  if (root->opcode() == HloOpcode::kTuple) {
    roots.assign(root->operands().begin(), root->operands().end());
  } else {
    roots.push_back(root);
  }
  std::vector<Shape> output_shapes;
  if (fusion_.shape().IsTuple()) {
    output_shapes = fusion_.shape().tuple_shapes();
  } else {
    output_shapes.push_back(fusion_.shape());
  }
  if (output_shapes.size() != roots.size()) {
    return OpUnimplemented(fusion_, "outputs do not match the fused roots");
  }
  for (const HloInstruction* operand : fusion_.operands()) {
    if (!operand->shape().IsArray()) {
      return OpUnimplemented(fusion_, "an operand is not an array");
    }
  }
  row_values_ = DependentsOfReductions(*fused, info_.reductions);
  const int64_t num_inputs = fusion_.operand_count();
  const int64_t num_buffers = num_inputs + static_cast<int64_t>(roots.size());
  llvm::Function* range =
      CreateRangeFunction(module, symbol + ".rows", num_buffers);
  llvm::IRBuilder<> builder(&range->getEntryBlock());
  b_ = &builder;
  ElementalEmitter elemental(module, &builder, ctx_.math);
  FusedIrEmitter fused_emitter(&elemental);
  elemental_ = &elemental;
  fused_ = &fused_emitter;
  for (int64_t i = 0; i < num_inputs; ++i) {
    IrArray array(range->getArg(i), fusion_.operand(i)->shape());
    inputs_.push_back(array);
    fused_emitter.BindParameter(i, [array, &builder](const IrIndex& index) {
      return array.EmitRead(index, &builder);
    });
  }
  const int64_t full_elements = info_.rows.num_rows * info_.rows.row_length;
  for (size_t o = 0; o < roots.size(); ++o) {
    const Shape& shape = output_shapes[o];
    if (!shape.IsArray()) {
      return OpUnimplemented(fusion_, "an output is not an array");
    }
    IrArray array(range->getArg(num_inputs + o), shape);
    const bool full = shape.ElementCount() == full_elements;
    llvm::Value* stage = nullptr;
    if (full && UseStreamingStores(*ctx_.options, shape)) {
      stage = EmitStageBuffer(shape.element_type(),
                              std::min(info_.rows.row_length, kStageElements),
                              &builder);
      streams_ = true;
    }
    outputs_.push_back({roots[o], array, full, stage});
  }
  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "row", range->getArg(num_buffers), range->getArg(num_buffers + 1),
      builder.getInt64(1), [&](llvm::Value* row) { return EmitRow(row); },
      &builder));
  if (streams_) EmitStreamingFence(&builder);
  builder.CreateRetVoid();
  const int64_t rows = info_.rows.num_rows;
  EmitKernelEntry(
      module, symbol, num_buffers,
      {{range, rows, ShouldRunParallel(*ctx_.options, rows, full_elements)}});
  return absl::OkStatus();
}

}  // namespace

bool IsRowFusionKernel(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kFusion &&
         GetFusionShape(hlo) == FusionShape::kRowReduction;
}

absl::Status EmitRowFusionKernel(const HloInstruction& hlo,
                                 const std::string& symbol,
                                 const OpEmitterContext& ctx) {
  absl::StatusOr<RowReductionInfo> info =
      AnalyzeRowReduction(*hlo.fused_computation());
  if (!info.ok()) return OpUnimplemented(hlo, info.status().message());
  return RowFusionEmitter(hlo, *std::move(info), ctx).Emit(symbol);
}

}  // namespace hloc
