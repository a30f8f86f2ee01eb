#include "backends/cpu/ir_emitter.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <iterator>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/in_place_update.h"
#include "backends/common/ir_array.h"
#include "backends/common/kernel_analysis.h"
#include "backends/common/kernel_generators.h"
#include "backends/common/loop_emitter.h"
#include "backends/common/math_library.h"
#include "backends/cpu/op_emitters.h"
#include "backends/cpu/streaming_store.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "runtime/buffer_assignment.h"

namespace hloc {
namespace {

// The longest chunk of a streamed elementwise loop (staged on the stack).
constexpr int64_t kStreamChunkElements = 2048;

// Everything a loop's range function body needs.
struct RangeContext {
  llvm::IRBuilderBase* b;
  llvm::Value* lo;
  llvm::Value* hi;
  std::vector<IrArray> inputs;
  std::vector<IrArray> outputs;
  ElementalEmitter* elemental;
  std::function<absl::StatusOr<ElementGenerator>(const HloInstruction*)>
      generator;

  KernelGenerators* generators;

  absl::StatusOr<ElementGenerator> OutputGenerator(const KernelOutput& o) {
    return generators->ForOutput(o);
  }
};

struct LoopSpec {
  int64_t work_items;
  int64_t elements;  // elements visited, for the parallel threshold
  std::function<absl::Status(RangeContext&)> emit;
};

// The CPU's LoopMapping: work items [lo, hi) of (row, chunk of the row)
// pairs, where a row is the physically minor dimension of the shape. Per
// work item the row's multi-dimensional index is split once; the inner
// loop over the chunk carries the linear index, so reads of same-shaped
// operands are consecutive and the loop vectorizer widens it.
struct RowPlan {
  int64_t minor_size;
  int64_t chunk;
  int64_t chunks_per_row;
  int64_t work_items;
};

RowPlan MakeRowPlan(const Shape& shape, int64_t max_chunk) {
  RowPlan p;
  int64_t n = shape.ElementCount();
  p.minor_size =
      shape.rank() == 0 ? 1 : shape.dimensions(shape.MinorToMajor()[0]);
  p.chunk = std::max<int64_t>(1, std::min(p.minor_size, max_chunk));
  p.chunks_per_row = p.minor_size == 0 ? 0 : CeilOfRatio(p.minor_size, p.chunk);
  p.work_items = p.minor_size == 0 ? 0 : (n / p.minor_size) * p.chunks_per_row;
  return p;
}

class CpuLoopMapping : public LoopMapping {
 public:
  // Called around each work item's inner loop with the physical linear
  // position of the chunk's first element and its length.
  using ChunkHook =
      std::function<void(llvm::Value* start, llvm::Value* length)>;

  CpuLoopMapping(llvm::Value* lo, llvm::Value* hi, RowPlan plan)
      : lo_(lo), hi_(hi), plan_(plan) {}

  void set_chunk_hooks(ChunkHook before, ChunkHook after) {
    before_chunk_ = std::move(before);
    after_chunk_ = std::move(after);
  }

  absl::Status EmitLoopNest(const Shape& shape, const BodyEmitter& body,
                            llvm::IRBuilderBase* b) override {
    // Nothing to visit in a shape with a zero dimension; its minor size
    // may be 0, which the row arithmetic below divides by.
    if (shape.ElementCount() == 0) return absl::OkStatus();
    llvm::Type* i64 = b->getInt64Ty();
    std::vector<int64_t> m2m = shape.MinorToMajor();
    std::vector<int64_t> strides = LayoutStrides(shape);
    const int64_t k = plan_.chunks_per_row;
    return EmitForLoop(
        "work", lo_, hi_, b->getInt64(1),
        [&](llvm::Value* w) -> absl::Status {
          if (shape.rank() == 0) {
            return body(IrIndex({}, b->getInt64(0), shape, i64));
          }
          llvm::Value* row = k == 1 ? w : b->CreateUDiv(w, b->getInt64(k));
          llvm::Value* c0 =
              k == 1 ? b->getInt64(0)
                     : b->CreateMul(b->CreateURem(w, b->getInt64(k)),
                                    b->getInt64(plan_.chunk), "", true, true);
          llvm::Value* c1 = k == 1
                                ? b->getInt64(plan_.minor_size)
                                : b->CreateBinaryIntrinsic(
                                      llvm::Intrinsic::umin,
                                      b->CreateAdd(c0, b->getInt64(plan_.chunk),
                                                   "", true, true),
                                      b->getInt64(plan_.minor_size));
          std::vector<llvm::Value*> multidim(shape.rank());
          for (int64_t i = 1; i < shape.rank(); ++i) {
            int64_t d = m2m[i];
            if (shape.dimensions(d) == 1) {
              multidim[d] = b->getInt64(0);
              continue;
            }
            llvm::Value* v = row;
            int64_t row_stride = strides[d] / plan_.minor_size;
            if (row_stride != 1) v = b->CreateUDiv(v, b->getInt64(row_stride));
            if (i + 1 < shape.rank()) {
              v = b->CreateURem(v, b->getInt64(shape.dimensions(d)));
            }
            multidim[d] = v;
          }
          llvm::Value* row_base =
              b->CreateMul(row, b->getInt64(plan_.minor_size), "", true, true);
          llvm::Value* start = b->CreateAdd(row_base, c0, "", true, true);
          llvm::Value* length = b->CreateSub(c1, c0, "", true, true);
          if (before_chunk_) before_chunk_(start, length);
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "col", c0, c1, b->getInt64(1),
              [&](llvm::Value* c) {
                multidim[m2m[0]] = c;
                llvm::Value* linear = b->CreateAdd(row_base, c, "", true, true);
                return body(IrIndex(multidim, linear, shape, i64));
              },
              b));
          if (after_chunk_) after_chunk_(start, length);
          return absl::OkStatus();
        },
        b);
  }

 private:
  llvm::Value* lo_;
  llvm::Value* hi_;
  RowPlan plan_;
  ChunkHook before_chunk_;
  ChunkHook after_chunk_;
};

// Loops over `dims` (most major first), setting index[dim] in each.
absl::Status EmitNestedLoops(const std::vector<int64_t>& dims,
                             const Shape& shape,
                             std::vector<llvm::Value*>& index,
                             const std::function<absl::Status()>& body,
                             llvm::IRBuilderBase* b, size_t level = 0) {
  if (level == dims.size()) return body();
  int64_t d = dims[level];
  return EmitForLoop(
      "red" + std::to_string(d), b->getInt64(0),
      b->getInt64(shape.dimensions(d)), b->getInt64(1),
      [&](llvm::Value* iv) {
        index[d] = iv;
        return EmitNestedLoops(dims, shape, index, body, b, level + 1);
      },
      b);
}

// Stores the non-reduce outputs (of the reduce input's shape) at `in_index`.
absl::Status EmitExtraOutputs(const KernelInfo& info, RangeContext& ctx,
                              const IrIndex& in_index) {
  for (size_t o = 0; o < info.outputs.size(); ++o) {
    if (info.outputs[o].root->opcode() == HloOpcode::kReduce) continue;
    HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                          ctx.OutputGenerator(info.outputs[o]));
    HLOC_ASSIGN_OR_RETURN(llvm::Value * v, g(in_index));
    HLOC_RETURN_IF_ERROR(ctx.outputs[o].EmitWrite(in_index, v, ctx.b));
  }
  return absl::OkStatus();
}

// combine(accumulators..., inputs...) of one reduce, results stored by
// `store(k, value)`.
absl::Status EmitCombine(
    RangeContext& ctx, const ReduceState& s,
    const std::vector<llvm::Value*>& accumulators, const IrIndex& in_index,
    bool reassociate,
    const std::function<absl::Status(size_t, llvm::Value*)>& store) {
  llvm::IRBuilderBase* b = ctx.b;
  std::vector<llvm::Value*> args = accumulators;
  for (size_t k = 0; k < s.n; ++k) {
    HLOC_ASSIGN_OR_RETURN(llvm::Value * x, s.inputs[k](in_index));
    args.push_back(x);
  }
  llvm::Value* r;
  {
    llvm::IRBuilderBase::FastMathFlagGuard guard(*b);
    if (reassociate) {
      b->setFastMathFlags(ReductionFastMathFlags(*s.reduce->to_apply()));
    }
    HLOC_ASSIGN_OR_RETURN(
        r, ctx.elemental->EmitScalarComputation(s.reduce->to_apply(), args));
  }
  for (size_t k = 0; k < s.n; ++k) {
    HLOC_RETURN_IF_ERROR(store(
        k,
        s.n == 1 ? r : b->CreateExtractValue(r, {static_cast<unsigned>(k)})));
  }
  return absl::OkStatus();
}

// How many output rows one pass over the reduced dimensions computes. A
// variadic reduce (argmax: value and index) carries a chain of compares
// and selects from one element to the next that LLVM cannot vectorize or
// reassociate; interleaving independent rows hides that chain's latency.
// Each row is still reduced in order, so the results are the same.
constexpr int64_t kVariadicRowsPerPass = 4;

LoopSpec RowReductionLoop(const KernelInfo& info, const ReductionInfo& r) {
  // The first reduce output's layout gives the order outputs are written in.
  const Shape* first_out = nullptr;
  for (size_t o = 0; o < info.outputs.size(); ++o) {
    if (info.outputs[o].root->opcode() == HloOpcode::kReduce) {
      first_out = &info.output_shapes[o];
      break;
    }
  }
  Shape iteration = *first_out;
  LoopSpec spec;
  spec.work_items = iteration.ElementCount();
  spec.elements = r.input_shape.ElementCount();
  spec.emit = [info, r, iteration](RangeContext& ctx) -> absl::Status {
    llvm::IRBuilderBase* b = ctx.b;
    HLOC_ASSIGN_OR_RETURN(
        std::vector<ReduceState> states,
        MakeReduceStates(info, r, ctx.generator, ctx.b->getContext()));
    std::vector<int64_t> loop_order = ReducedLoopOrder(r);
    bool variadic = false;
    for (const ReduceState& state : states) variadic |= state.n > 1;
    // Output rows w .. w + rows - 1, their reductions side by side.
    auto emit_rows = [&](llvm::Value* w, int64_t rows) -> absl::Status {
      std::vector<IrIndex> out_index;
      std::vector<std::vector<llvm::Value*>> in_index(
          rows, std::vector<llvm::Value*>(r.input_shape.rank()));
      // slots[u][i][k]: row u's accumulator k of reduce i.
      std::vector<std::vector<std::vector<llvm::Value*>>> slots(rows);
      IrIndex scalar = IrIndex::Scalar(b->getInt64Ty());
      for (int64_t u = 0; u < rows; ++u) {
        llvm::Value* row =
            u == 0 ? w : b->CreateAdd(w, b->getInt64(u), "", true, true);
        out_index.push_back(IrIndex::FromLinear(row, iteration, b));
        for (size_t j = 0; j < r.kept_dims.size(); ++j) {
          in_index[u][r.kept_dims[j]] = out_index[u][j];
        }
        slots[u].resize(states.size());
        for (size_t i = 0; i < states.size(); ++i) {
          for (size_t k = 0; k < states[i].n; ++k) {
            HLOC_ASSIGN_OR_RETURN(llvm::Value * init,
                                  states[i].inits[k](scalar));
            slots[u][i].push_back(
                EmitAllocaAtEntry(states[i].types[k], "acc", b));
            b->CreateStore(init, slots[u][i][k]);
          }
        }
      }
      HLOC_RETURN_IF_ERROR(EmitNestedLoops(
          loop_order, r.input_shape, in_index[0],
          [&]() -> absl::Status {
            for (int64_t u = 0; u < rows; ++u) {
              for (int64_t d : loop_order) in_index[u][d] = in_index[0][d];
              IrIndex index(in_index[u], b->getInt64Ty());
              for (size_t i = 0; i < states.size(); ++i) {
                std::vector<llvm::Value*> accs;
                for (size_t k = 0; k < states[i].n; ++k) {
                  accs.push_back(
                      b->CreateLoad(states[i].types[k], slots[u][i][k]));
                }
                HLOC_RETURN_IF_ERROR(EmitCombine(
                    ctx, states[i], accs, index, /*reassociate=*/true,
                    [&](size_t k, llvm::Value* v) {
                      b->CreateStore(v, slots[u][i][k]);
                      return absl::OkStatus();
                    }));
              }
              HLOC_RETURN_IF_ERROR(EmitExtraOutputs(info, ctx, index));
            }
            return absl::OkStatus();
          },
          b));
      for (int64_t u = 0; u < rows; ++u) {
        for (size_t i = 0; i < states.size(); ++i) {
          for (size_t k = 0; k < states[i].n; ++k) {
            if (states[i].output_of[k] < 0) continue;
            HLOC_RETURN_IF_ERROR(
                ctx.outputs[states[i].output_of[k]].EmitWrite(
                    out_index[u],
                    b->CreateLoad(states[i].types[k], slots[u][i][k]), b));
          }
        }
      }
      return absl::OkStatus();
    };
    auto one_row = [&](llvm::Value* w) { return emit_rows(w, 1); };
    if (!variadic) {
      return EmitForLoop("out", ctx.lo, ctx.hi, b->getInt64(1), one_row, b);
    }
    // Whole groups of rows, then the rows left over one at a time.
    const int64_t group = kVariadicRowsPerPass;
    llvm::Value* count = b->CreateSub(ctx.hi, ctx.lo, "", true, true);
    llvm::Value* grouped_end = b->CreateSub(
        ctx.hi, b->CreateURem(count, b->getInt64(group)), "", true, true);
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "out", ctx.lo, grouped_end, b->getInt64(group),
        [&](llvm::Value* w) { return emit_rows(w, group); }, b));
    return EmitForLoop("out.rest", grouped_end, ctx.hi, b->getInt64(1),
                       one_row, b);
  };
  return spec;
}

LoopSpec ColumnReductionLoop(const KernelInfo& info, const ReductionInfo& r,
                             const CpuCodegenOptions& options) {
  const Shape& in = r.input_shape;
  int64_t minor = in.MinorToMajor()[0];
  int64_t m = in.dimensions(minor);
  std::vector<int64_t> other_kept;
  int64_t p = 1;
  for (int64_t d : r.kept_dims) {
    if (d == minor) continue;
    other_kept.push_back(d);
    p *= in.dimensions(d);
  }
  // Long chunks keep the walk down the reduced rows sequential (each row
  // step is a new page otherwise), but there should be a work item per
  // thread: shorten them (not below 512) when there are too few.
  int64_t chunk = std::max<int64_t>(1, std::min(m, options.column_chunk));
  int64_t threads =
      options.parallel ? std::max(1u, std::thread::hardware_concurrency()) : 1;
  if (p * CeilOfRatio(m, chunk) < threads) {
    chunk = std::min(chunk, std::max<int64_t>(
                                512, (CeilOfRatio(m, threads) + 63) / 64 * 64));
  }
  int64_t k = m == 0 ? 0 : CeilOfRatio(m, chunk);
  LoopSpec spec;
  spec.work_items = p * k;
  spec.elements = in.ElementCount();
  spec.emit = [info, r, minor, m, chunk, k,
               other_kept](RangeContext& ctx) -> absl::Status {
    llvm::IRBuilderBase* b = ctx.b;
    const Shape& in = r.input_shape;
    HLOC_ASSIGN_OR_RETURN(
        std::vector<ReduceState> states,
        MakeReduceStates(info, r, ctx.generator, ctx.b->getContext()));
    std::vector<int64_t> loop_order = ReducedLoopOrder(r);
    return EmitForLoop(
        "item", ctx.lo, ctx.hi, b->getInt64(1),
        [&](llvm::Value* w) -> absl::Status {
          llvm::Value* row = k == 1 ? w : b->CreateUDiv(w, b->getInt64(k));
          llvm::Value* c0 =
              k == 1 ? b->getInt64(0)
                     : b->CreateMul(b->CreateURem(w, b->getInt64(k)),
                                    b->getInt64(chunk), "", true, true);
          llvm::Value* c1 =
              k == 1 ? b->getInt64(m)
                     : b->CreateBinaryIntrinsic(
                           llvm::Intrinsic::umin,
                           b->CreateAdd(c0, b->getInt64(chunk), "", true, true),
                           b->getInt64(m));
          std::vector<llvm::Value*> in_index(in.rank());
          // Row-major split of the work item's row over the other kept dims.
          int64_t stride = 1;
          for (auto it = other_kept.rbegin(); it != other_kept.rend(); ++it) {
            llvm::Value* v = row;
            if (stride != 1) v = b->CreateUDiv(v, b->getInt64(stride));
            if (std::next(it) != other_kept.rend()) {
              v = b->CreateURem(v, b->getInt64(in.dimensions(*it)));
            }
            in_index[*it] = v;
            stride *= in.dimensions(*it);
          }
          auto out_index = [&]() {
            std::vector<llvm::Value*> idx;
            for (int64_t d : r.kept_dims) idx.push_back(in_index[d]);
            return IrIndex(idx, b->getInt64Ty());
          };
          IrIndex scalar = IrIndex::Scalar(b->getInt64Ty());
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "init", c0, c1, b->getInt64(1),
              [&](llvm::Value* c) -> absl::Status {
                in_index[minor] = c;
                for (const ReduceState& s : states) {
                  for (size_t j = 0; j < s.n; ++j) {
                    if (s.output_of[j] < 0) continue;
                    HLOC_ASSIGN_OR_RETURN(llvm::Value * init,
                                          s.inits[j](scalar));
                    HLOC_RETURN_IF_ERROR(ctx.outputs[s.output_of[j]].EmitWrite(
                        out_index(), init, b));
                  }
                }
                return absl::OkStatus();
              },
              b));
          return EmitNestedLoops(
              loop_order, in, in_index,
              [&]() -> absl::Status {
                return EmitForLoop(
                    "col", c0, c1, b->getInt64(1),
                    [&](llvm::Value* c) -> absl::Status {
                      in_index[minor] = c;
                      IrIndex index(in_index, b->getInt64Ty());
                      IrIndex oi = out_index();
                      for (const ReduceState& s : states) {
                        std::vector<llvm::Value*> accs;
                        for (size_t j = 0; j < s.n; ++j) {
                          if (s.output_of[j] < 0) {
                            return absl::UnimplementedError(
                                "CPU codegen: column reduction with an unused "
                                "result");
                          }
                          HLOC_ASSIGN_OR_RETURN(
                              llvm::Value * acc,
                              ctx.outputs[s.output_of[j]].EmitRead(oi, b));
                          accs.push_back(acc);
                        }
                        HLOC_RETURN_IF_ERROR(EmitCombine(
                            ctx, s, accs, index, /*reassociate=*/false,
                            [&](size_t j, llvm::Value* v) {
                              return ctx.outputs[s.output_of[j]].EmitWrite(
                                  oi, v, b);
                            }));
                      }
                      return EmitExtraOutputs(info, ctx, index);
                    },
                    b);
              },
              b);
        },
        b);
  };
  return spec;
}

// Outputs (positions in `outputs`) written with streaming stores: large,
// and laid out like the iteration shape, so a chunk of the iteration is a
// contiguous run of each.
std::vector<size_t> StreamedOutputs(const KernelInfo& info,
                                    const std::vector<size_t>& outputs,
                                    const CpuCodegenOptions& options) {
  const Shape& iteration = info.output_shapes[outputs[0]];
  std::vector<size_t> streamed;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Shape& shape = info.output_shapes[outputs[i]];
    if (UseStreamingStores(options, shape) && shape.SameDimensions(iteration) &&
        shape.MinorToMajor() == iteration.MinorToMajor()) {
      streamed.push_back(i);
    }
  }
  return streamed;
}

LoopSpec ElementwiseLoop(const KernelInfo& info, std::vector<size_t> outputs,
                         const CpuCodegenOptions& options) {
  Shape iteration = info.output_shapes[outputs[0]];
  std::vector<size_t> streamed = StreamedOutputs(info, outputs, options);
  // Streamed chunks are staged on the stack: keep them L1-sized.
  RowPlan plan = MakeRowPlan(
      iteration, streamed.empty() ? options.max_row_chunk
                                  : std::min<int64_t>(options.max_row_chunk,
                                                      kStreamChunkElements));
  LoopSpec spec;
  spec.work_items = plan.work_items;
  spec.elements = iteration.ElementCount();
  spec.emit = [info, outputs, plan,
               streamed](RangeContext& ctx) -> absl::Status {
    llvm::IRBuilderBase* b = ctx.b;
    std::vector<ElementGenerator> generators;
    std::vector<IrArray> arrays;
    for (size_t o : outputs) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                            ctx.OutputGenerator(info.outputs[o]));
      generators.push_back(std::move(g));
      arrays.push_back(ctx.outputs[o]);
    }
    LoopEmitter emitter(std::move(generators), arrays, b);
    CpuLoopMapping mapping(ctx.lo, ctx.hi, plan);
    // Each streamed output's chunk is computed into a stack buffer, then
    // copied out with non-temporal stores.
    std::vector<llvm::Value*> staging;
    for (size_t i : streamed) {
      staging.push_back(
          EmitStageBuffer(arrays[i].shape().element_type(), plan.chunk, b));
    }
    if (!streamed.empty()) {
      mapping.set_chunk_hooks(
          [&](llvm::Value* start, llvm::Value*) {
            for (size_t k = 0; k < streamed.size(); ++k) {
              emitter.set_output_array(
                  streamed[k],
                  IrArray::Window(staging[k], arrays[streamed[k]].shape(),
                                  start));
            }
          },
          [&](llvm::Value* start, llvm::Value* length) {
            for (size_t k = 0; k < streamed.size(); ++k) {
              EmitStreamOut(arrays[streamed[k]], start, length, staging[k], b);
            }
          });
    }
    HLOC_RETURN_IF_ERROR(emitter.EmitLoop(mapping));
    if (!streamed.empty()) EmitStreamingFence(b);
    return absl::OkStatus();
  };
  return spec;
}

// The loop of an in-place dynamic-update-slice kernel (`dus` is the
// kernel's instruction or its fused root): over the update's elements
// only, the output buffer already holding the operand.
LoopSpec InPlaceUpdateLoop(const HloInstruction* dus,
                           const CpuCodegenOptions& options) {
  const Shape update = dus->operand(1)->shape();
  RowPlan plan = MakeRowPlan(update, options.max_row_chunk);
  LoopSpec spec;
  spec.work_items = plan.work_items;
  spec.elements = update.ElementCount();
  spec.emit = [dus, update, plan](RangeContext& ctx) -> absl::Status {
    HLOC_ASSIGN_OR_RETURN(
        LoopMapping::BodyEmitter body,
        InPlaceDynamicUpdateSliceBody(*dus, *ctx.generators, ctx.outputs[0],
                                      ctx.b->getInt64Ty(), ctx.b));
    CpuLoopMapping mapping(ctx.lo, ctx.hi, plan);
    return mapping.EmitLoopNest(update, body, ctx.b);
  };
  return spec;
}

std::string Sanitize(const std::string& name) {
  std::string out;
  for (char c : name) {
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')
               ? c
               : '_';
  }
  return out;
}

}  // namespace

struct CpuModuleEmitter::State {
  CpuCodegenOptions options;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  HostMathLibrary math;

  absl::StatusOr<std::string> EmitKernel(const HloInstruction& hlo,
                                         const std::string& name);
  absl::StatusOr<std::string> EmitInPlaceUpdateKernel(const HloInstruction& hlo,
                                                      const std::string& name);
  // The kernel running `loops` of `info` in order.
  absl::StatusOr<std::string> EmitLoopKernel(const KernelInfo& info,
                                             const std::vector<LoopSpec>& loops,
                                             const std::string& name);
  OpEmitterContext OpContext();
  absl::StatusOr<llvm::Function*> EmitRangeFunction(const KernelInfo& info,
                                                    const std::string& name,
                                                    const LoopSpec& spec);
  llvm::Function* EmitOmpOutlined(const std::string& name,
                                  llvm::Function* range, int64_t num_buffers,
                                  int64_t work_items);
};

absl::StatusOr<llvm::Function*> CpuModuleEmitter::State::EmitRangeFunction(
    const KernelInfo& info, const std::string& name, const LoopSpec& spec) {
  llvm::LLVMContext& ctx = *context;
  size_t num_buffers = info.input_shapes.size() + info.output_shapes.size();
  std::vector<llvm::Type*> params(num_buffers, llvm::PointerType::get(ctx, 0));
  params.push_back(llvm::Type::getInt64Ty(ctx));
  params.push_back(llvm::Type::getInt64Ty(ctx));
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false),
      llvm::GlobalValue::InternalLinkage, name, module.get());
  fn->setDoesNotThrow();
  for (size_t i = 0; i < num_buffers; ++i) {
    fn->addParamAttr(i, llvm::Attribute::NoAlias);
    fn->addParamAttr(i, llvm::Attribute::NoCapture);
  }
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(ctx, "entry", fn));
  RangeContext rc;
  rc.b = &builder;
  rc.lo = fn->getArg(num_buffers);
  rc.hi = fn->getArg(num_buffers + 1);
  for (size_t i = 0; i < info.input_shapes.size(); ++i) {
    rc.inputs.emplace_back(fn->getArg(i), info.input_shapes[i]);
  }
  for (size_t i = 0; i < info.output_shapes.size(); ++i) {
    rc.outputs.emplace_back(fn->getArg(info.input_shapes.size() + i),
                            info.output_shapes[i]);
  }
  ElementalEmitter elemental(module.get(), &builder, &math);
  rc.elemental = &elemental;
  KernelGenerators generators(info, rc.inputs, &elemental);
  rc.generators = &generators;
  rc.generator = [&generators](const HloInstruction* hlo) {
    return generators.Get(hlo);
  };
  absl::Status status = spec.emit(rc);
  if (!status.ok()) {
    fn->eraseFromParent();
    return status;
  }
  builder.CreateRetVoid();
  return fn;
}

llvm::Function* CpuModuleEmitter::State::EmitOmpOutlined(
    const std::string& name, llvm::Function* range, int64_t num_buffers,
    int64_t work_items) {
  llvm::LLVMContext& ctx = *context;
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
      llvm::GlobalValue::InternalLinkage, name, module.get());
  fn->setDoesNotThrow();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::FunctionCallee thread_num = module->getOrInsertFunction(
      "omp_get_thread_num", llvm::FunctionType::get(i32, {}, false));
  llvm::FunctionCallee num_threads = module->getOrInsertFunction(
      "omp_get_num_threads", llvm::FunctionType::get(i32, {}, false));
  llvm::Value* tid = b.CreateSExt(b.CreateCall(thread_num), b.getInt64Ty());
  llvm::Value* nt = b.CreateSExt(b.CreateCall(num_threads), b.getInt64Ty());
  // Static split: thread t does [W*t/T, W*(t+1)/T).
  llvm::Value* total = b.getInt64(work_items);
  llvm::Value* lo = b.CreateUDiv(b.CreateMul(total, tid), nt);
  llvm::Value* hi =
      b.CreateUDiv(b.CreateMul(total, b.CreateAdd(tid, b.getInt64(1))), nt);
  std::vector<llvm::Value*> args;
  llvm::Value* buffers = fn->getArg(0);
  for (int64_t i = 0; i < num_buffers; ++i) {
    args.push_back(
        b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, buffers, i)));
  }
  args.push_back(lo);
  args.push_back(hi);
  b.CreateCall(range, args);
  b.CreateRetVoid();
  return fn;
}

absl::StatusOr<std::string> CpuModuleEmitter::State::EmitKernel(
    const HloInstruction& hlo, const std::string& name) {
  if (HasOpEmitter(hlo)) {
    std::string symbol = Sanitize(name);
    for (int i = 1; module->getNamedValue(symbol) != nullptr; ++i) {
      symbol = absl::StrCat(Sanitize(name), ".", i);
    }
    HLOC_RETURN_IF_ERROR(EmitOpKernel(hlo, symbol, OpContext()));
    return symbol;
  }
  HLOC_ASSIGN_OR_RETURN(KernelInfo info, AnalyzeKernel(hlo));
  std::vector<LoopSpec> loops;
  if (std::optional<ReductionInfo> r = AnalyzeReduction(info)) {
    loops.push_back(r->row ? RowReductionLoop(info, *r)
                           : ColumnReductionLoop(info, *r, options));
  } else {
    // One elementwise loop per distinct output dimensions.
    for (auto& g : GroupOutputsByDimensions(info))
      loops.push_back(ElementwiseLoop(info, g, options));
  }
  return EmitLoopKernel(info, loops, name);
}

OpEmitterContext CpuModuleEmitter::State::OpContext() {
  return {module.get(), &options, &math,
          [this](const HloInstruction& h, const std::string& n) {
            return EmitKernel(h, n);
          },
          [this](const HloInstruction& h, const std::string& n) {
            return EmitInPlaceUpdateKernel(h, n);
          }};
}

absl::StatusOr<std::string> CpuModuleEmitter::State::EmitInPlaceUpdateKernel(
    const HloInstruction& hlo, const std::string& name) {
  const HloInstruction* dus =
      hlo.opcode() == HloOpcode::kFusion ? hlo.fused_expression_root() : &hlo;
  if (InPlaceOperand(hlo, /*scatter=*/false) < 0 || dus == nullptr ||
      dus->opcode() != HloOpcode::kDynamicUpdateSlice) {
    return absl::InternalError(absl::StrCat(
        hlo.name(), " is no dynamic-update-slice that may be in place"));
  }
  HLOC_ASSIGN_OR_RETURN(KernelInfo info, AnalyzeKernel(hlo));
  return EmitLoopKernel(info, {InPlaceUpdateLoop(dus, options)}, name);
}

absl::StatusOr<std::string> CpuModuleEmitter::State::EmitLoopKernel(
    const KernelInfo& info, const std::vector<LoopSpec>& loops,
    const std::string& name) {
  std::string symbol = Sanitize(name);
  for (int i = 1; module->getNamedValue(symbol) != nullptr; ++i) {
    symbol = absl::StrCat(Sanitize(name), ".", i);
  }
  int64_t num_buffers = info.input_shapes.size() + info.output_shapes.size();
  std::vector<llvm::Function*> created;
  auto cleanup = [&]() {
    for (llvm::Function* f : created) f->eraseFromParent();
    // Constants only the failed kernel used.
    std::vector<llvm::GlobalVariable*> dead;
    for (llvm::GlobalVariable& g : module->globals()) {
      if (g.use_empty() && g.hasPrivateLinkage()) dead.push_back(&g);
    }
    for (llvm::GlobalVariable* g : dead) g->eraseFromParent();
  };
  std::vector<llvm::Function*> ranges;
  for (size_t i = 0; i < loops.size(); ++i) {
    absl::StatusOr<llvm::Function*> fn =
        EmitRangeFunction(info, absl::StrCat(symbol, ".loop", i), loops[i]);
    if (!fn.ok()) {
      cleanup();
      return fn.status();
    }
    created.push_back(*fn);
    ranges.push_back(*fn);
  }

  llvm::LLVMContext& ctx = *context;
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Function* kernel = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, symbol, module.get());
  kernel->setDoesNotThrow();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", kernel));
  llvm::Value* buffers = kernel->getArg(0);
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].work_items == 0) continue;
    bool parallel = options.parallel && loops[i].work_items >= 2 &&
                    loops[i].elements >= options.min_parallel_elements;
    if (parallel) {
      llvm::Function* outlined =
          EmitOmpOutlined(absl::StrCat(symbol, ".loop", i, ".omp"), ranges[i],
                          num_buffers, loops[i].work_items);
      llvm::FunctionCallee gomp = module->getOrInsertFunction(
          "GOMP_parallel",
          llvm::FunctionType::get(b.getVoidTy(),
                                  {ptr, ptr, b.getInt32Ty(), b.getInt32Ty()},
                                  false));
      b.CreateCall(gomp, {outlined, buffers, b.getInt32(0), b.getInt32(0)});
    } else {
      std::vector<llvm::Value*> args;
      for (int64_t j = 0; j < num_buffers; ++j) {
        args.push_back(
            b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, buffers, j)));
      }
      args.push_back(b.getInt64(0));
      args.push_back(b.getInt64(loops[i].work_items));
      b.CreateCall(ranges[i], args);
    }
  }
  b.CreateRetVoid();
  return symbol;
}

CpuModuleEmitter::CpuModuleEmitter(const std::string& module_name,
                                   const CpuCodegenOptions& options)
    : state_(std::make_unique<State>()) {
  state_->options = options;
  state_->context = std::make_unique<llvm::LLVMContext>();
  state_->module =
      std::make_unique<llvm::Module>(module_name, *state_->context);
}

CpuModuleEmitter::~CpuModuleEmitter() = default;

absl::StatusOr<std::string> CpuModuleEmitter::EmitKernel(
    const HloInstruction& hlo, const std::string& name) {
  if (state_->module == nullptr) {
    return absl::FailedPreconditionError("CpuModuleEmitter already finished");
  }
  return state_->EmitKernel(hlo, name);
}

absl::StatusOr<std::string> CpuModuleEmitter::EmitInPlaceUpdateKernel(
    const HloInstruction& hlo, const std::string& name) {
  if (state_->module == nullptr) {
    return absl::FailedPreconditionError("CpuModuleEmitter already finished");
  }
  return state_->EmitInPlaceUpdateKernel(hlo, name);
}

std::string CpuModuleEmitter::ModuleText() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (state_->module) state_->module->print(os, nullptr);
  return text;
}

absl::StatusOr<std::unique_ptr<JitModule>> CpuModuleEmitter::Finish(
    const JitOptions& options) {
  if (state_->module == nullptr) {
    return absl::FailedPreconditionError("CpuModuleEmitter already finished");
  }
  return JitModule::Create(std::move(state_->context),
                           std::move(state_->module), options);
}

absl::Status CpuModuleEmitter::ReleaseModule(
    std::unique_ptr<llvm::LLVMContext>* context,
    std::unique_ptr<llvm::Module>* module) {
  if (state_->module == nullptr) {
    return absl::FailedPreconditionError("CpuModuleEmitter already finished");
  }
  *context = std::move(state_->context);
  *module = std::move(state_->module);
  return absl::OkStatus();
}

}  // namespace hloc
