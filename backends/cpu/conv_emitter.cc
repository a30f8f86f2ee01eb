#include "backends/cpu/conv_emitter.h"

#include <algorithm>
#include <vector>

#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/loop_emitter.h"
#include "backends/cpu/gemm_emitter.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

using ElementFn = std::function<absl::StatusOr<llvm::Value*>(
    llvm::Value* g, llvm::Value* row, llvm::Value* col)>;
using StoreFn = std::function<absl::Status(llvm::Value* g, llvm::Value* i,
                                           llvm::Value* j, llvm::Value* v)>;

// Row packers and the store of the GEMM engine from element functions
// A(g, i, k), B(g, k, j) and the store C(g, i, j) = v; `swap` computes C^T
// = B^T A^T. Loop-invariant parts of the element functions (a row's index
// split) are left for LICM to hoist.
struct RowCallbacks {
  GemmARowPacker a_rows;
  GemmBRowPacker b_rows;
  std::function<absl::Status(llvm::Value*, llvm::Value*, llvm::Value*,
                             llvm::Value*, llvm::Value*, llvm::IRBuilderBase*)>
      store;
};

RowCallbacks MakeRowCallbacks(const ElementFn& a, const ElementFn& b,
                              const StoreFn& c, bool swap,
                              llvm::Type* acc_type) {
  ElementFn ga = swap ? ElementFn([b](llvm::Value* g, llvm::Value* j,
                                      llvm::Value* k) { return b(g, k, j); })
                      : a;
  ElementFn gb = swap ? ElementFn([a](llvm::Value* g, llvm::Value* k,
                                      llvm::Value* i) { return a(g, i, k); })
                      : b;
  StoreFn gc = swap
                   ? StoreFn([c](llvm::Value* g, llvm::Value* j, llvm::Value* i,
                                 llvm::Value* v) { return c(g, i, j, v); })
                   : c;
  RowCallbacks out;
  out.a_rows = [ga, acc_type](llvm::Value* g, llvm::Value* i, llvm::Value* k0,
                              llvm::Value* count, llvm::Value* dst,
                              int64_t dst_stride, llvm::IRBuilderBase* b) {
    return EmitForLoop(
        "packa.t", b->getInt64(0), count, b->getInt64(1),
        [&](llvm::Value* t) -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                ga(g, i, b->CreateAdd(k0, t, "", true, true)));
          b->CreateStore(
              v, b->CreateInBoundsGEP(
                     acc_type, dst,
                     b->CreateMul(t, b->getInt64(dst_stride), "", true, true)));
          return absl::OkStatus();
        },
        b);
  };
  out.b_rows = [gb, acc_type](llvm::Value* g, llvm::Value* k, llvm::Value* j0,
                              llvm::Value* count, llvm::Value* dst,
                              llvm::IRBuilderBase* b) {
    return EmitForLoop(
        "packb.t", b->getInt64(0), count, b->getInt64(1),
        [&](llvm::Value* t) -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                gb(g, k, b->CreateAdd(j0, t, "", true, true)));
          b->CreateStore(v, b->CreateInBoundsGEP(acc_type, dst, t));
          return absl::OkStatus();
        },
        b);
  };
  out.store = [gc, acc_type](llvm::Value* g, llvm::Value* i, llvm::Value* j0,
                             llvm::Value* count, llvm::Value* src,
                             llvm::IRBuilderBase* b) {
    return EmitForLoop(
        "store.t", b->getInt64(0), count, b->getInt64(1),
        [&](llvm::Value* t) -> absl::Status {
          llvm::Value* v =
              b->CreateLoad(acc_type, b->CreateInBoundsGEP(acc_type, src, t));
          return gc(g, i, b->CreateAdd(j0, t, "", true, true), v);
        },
        b);
  };
  return out;
}

}  // namespace

absl::Status EmitConvolutionKernel(const HloInstruction& hlo,
                                   const std::string& symbol,
                                   const OpEmitterContext& ctx) {
  const HloAttributes& attrs = hlo.attrs();
  if (hlo.operand_count() != 2 || !attrs.convolution_dimension_numbers ||
      !hlo.shape().IsArray() || !hlo.operand(0)->shape().IsArray() ||
      !hlo.operand(1)->shape().IsArray()) {
    return OpUnimplemented(hlo, "malformed convolution");
  }
  const ConvolutionDimensionNumbers& dn = *attrs.convolution_dimension_numbers;
  // XLA omits the empty window of a convolution without spatial
  // dimensions (a matmul).
  const Window window = attrs.window.value_or(Window{});
  const Shape& x = hlo.operand(0)->shape();
  const Shape& w = hlo.operand(1)->shape();
  const Shape& y = hlo.shape();
  const int64_t ns = dn.input_spatial_dimensions.size();
  const int64_t fg = attrs.feature_group_count;
  const int64_t bg = attrs.batch_group_count;
  if (fg > 1 && bg > 1) {
    return OpUnimplemented(hlo, "feature and batch groups together");
  }
  absl::StatusOr<PrimitiveType> acc_or = GemmAccumulationType(
      x.element_type(), w.element_type(), y.element_type());
  if (!acc_or.ok()) return OpUnimplemented(hlo, acc_or.status().message());
  const PrimitiveType acc = *acc_or;
  llvm::Module* module = ctx.module;
  for (const Shape* s : {&x, &w, &y}) {
    if (!StorageType(s->element_type(), module->getContext()).ok()) {
      return OpUnimplemented(hlo, "element type");
    }
  }
  const int64_t groups = fg * bg;
  const int64_t group_in = w.dimensions(dn.kernel_input_feature_dimension);
  const int64_t out_features = w.dimensions(dn.kernel_output_feature_dimension);
  const int64_t out_batch = y.dimensions(dn.output_batch_dimension);
  const int64_t per_group = out_features / groups;
  const std::vector<int64_t> xs = LayoutStrides(x);
  const std::vector<int64_t> ws = LayoutStrides(w);
  const std::vector<int64_t> ys = LayoutStrides(y);

  // M: (output batch, output spatial...), row-major.
  std::vector<int64_t> m_sizes = {out_batch},
                       m_strides = {ys[dn.output_batch_dimension]};
  // K: (kernel spatial..., input feature), the feature fastest; the
  // kernel's offsets count reversed dimensions backwards from their end.
  std::vector<int64_t> k_sizes, k_strides;
  int64_t w_base = 0;
  int64_t m = out_batch, k = group_in;
  for (int64_t d = 0; d < ns; ++d) {
    const int64_t out_size = y.dimensions(dn.output_spatial_dimensions[d]);
    const int64_t k_size = w.dimensions(dn.kernel_spatial_dimensions[d]);
    m_sizes.push_back(out_size);
    m_strides.push_back(ys[dn.output_spatial_dimensions[d]]);
    m *= out_size;
    k *= k_size;
    const int64_t stride = ws[dn.kernel_spatial_dimensions[d]];
    k_sizes.push_back(k_size);
    if (window.dimensions[d].window_reversal) {
      w_base += (k_size - 1) * stride;
      k_strides.push_back(-stride);
    } else {
      k_strides.push_back(stride);
    }
  }
  k_sizes.push_back(group_in);
  k_strides.push_back(ws[dn.kernel_input_feature_dimension]);
  const DimGroup m_group(m_sizes, m_strides);
  const DimGroup k_group(k_sizes, k_strides);
  const int64_t n = per_group;

  const VectorTarget target =
      VectorTargetFor(ctx.options->target_triple, ctx.options->cpu_features);
  GemmTiling tiling = ChooseGemmTiling(target, acc, m, n, k);
  GemmTiling transposed = ChooseGemmTiling(target, acc, n, m, k);
  const bool swap =
      PaddedGemmWork(transposed, n, m, k) < PaddedGemmWork(tiling, m, n, k);
  if (swap) tiling = transposed;

  // Depthwise (one input feature per group) with the features minor in the
  // output: a direct loop nest vectorized over the features does better
  // than one GEMM per feature.
  const int64_t minor_out = y.rank() > 0 ? y.MinorToMajor()[0] : -1;
  const bool depthwise = fg > 1 && group_in == 1 && ns > 0 &&
                         minor_out == dn.output_feature_dimension;

  llvm::Function* range = CreateRangeFunction(
      module, symbol + (depthwise ? ".depthwise" : ".gemm"), 3);
  llvm::IRBuilder<> builder(&range->getEntryBlock());
  llvm::IRBuilderBase* b = &builder;
  ElementalEmitter elemental(module, b, ctx.math);
  llvm::Value* x_base = range->getArg(0);
  llvm::Value* w_base_ptr = range->getArg(1);
  llvm::Value* y_base = range->getArg(2);
  HLOC_ASSIGN_OR_RETURN(llvm::Type * acc_type,
                        RegisterType(acc, module->getContext()));
  auto i64 = [b](int64_t v) { return b->getInt64(v); };

  // The input offset of batch/feature (feature = ci of group g) and, per
  // spatial dimension, whether output position o and kernel index kd read
  // an input element (not padding, not a hole of the lhs dilation) and the
  // offset it adds.
  auto input_base = [&](llvm::Value* g, llvm::Value* nb, llvm::Value* ci) {
    llvm::Value* batch = nb;
    if (bg > 1) batch = b->CreateAdd(batch, b->CreateMul(g, i64(out_batch)));
    llvm::Value* feature = ci;
    if (fg > 1) feature = b->CreateAdd(feature, b->CreateMul(g, i64(group_in)));
    return b->CreateAdd(
        b->CreateMul(batch, i64(xs[dn.input_batch_dimension])),
        b->CreateMul(feature, i64(xs[dn.input_feature_dimension])));
  };
  auto spatial = [&](int64_t d, llvm::Value* o, llvm::Value* kd,
                     llvm::Value** valid) -> llvm::Value* {
    const WindowDimension& wd = window.dimensions[d];
    const int64_t in_size = x.dimensions(dn.input_spatial_dimensions[d]);
    llvm::Value* pos =
        b->CreateSub(b->CreateAdd(b->CreateMul(o, i64(wd.stride)),
                                  b->CreateMul(kd, i64(wd.window_dilation))),
                     i64(wd.padding_low));
    llvm::Value* coord = pos;
    if (wd.padding_low > 0 || wd.padding_high > 0 || wd.base_dilation > 1) {
      llvm::Value* ok = b->CreateICmpSGE(pos, i64(0));
      llvm::Value* safe = b->CreateSelect(ok, pos, i64(0));
      if (wd.base_dilation > 1) {
        ok = b->CreateAnd(
            ok, b->CreateICmpEQ(b->CreateURem(safe, i64(wd.base_dilation)),
                                i64(0)));
        safe = b->CreateUDiv(safe, i64(wd.base_dilation));
      }
      ok = b->CreateAnd(ok, b->CreateICmpSLT(safe, i64(in_size)));
      *valid = b->CreateAnd(*valid, ok);
      coord = b->CreateSelect(ok, safe, i64(0));
    }
    return b->CreateMul(coord, i64(xs[dn.input_spatial_dimensions[d]]));
  };
  auto load_x = [&](llvm::Value* valid,
                    llvm::Value* off) -> absl::StatusOr<llvm::Value*> {
    HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                          LoadFlat(x.element_type(), x_base, off, b));
    HLOC_ASSIGN_OR_RETURN(v, elemental.EmitConvert(v, x.element_type(), acc));
    return b->CreateSelect(valid, v, llvm::Constant::getNullValue(acc_type));
  };
  auto load_w = [&](llvm::Value* off) -> absl::StatusOr<llvm::Value*> {
    HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                          LoadFlat(w.element_type(), w_base_ptr, off, b));
    return elemental.EmitConvert(v, w.element_type(), acc);
  };
  auto store = [&](llvm::Value* dst, llvm::Value* t, int64_t stride,
                   llvm::Value* v) {
    b->CreateStore(
        v, b->CreateInBoundsGEP(acc_type, dst, b->CreateMul(t, i64(stride))));
  };
  // Kernel spatial positions (row-major, reversal in the offsets).
  const DimGroup kpos_group(
      std::vector<int64_t>(k_sizes.begin(), k_sizes.end() - 1),
      std::vector<int64_t>(k_strides.begin(), k_strides.end() - 1));
  // Walks K from k0 for count elements in runs of one kernel position:
  // body(kernel position, first feature, run length, position in the
  // segment).
  auto for_k_runs =
      [&](llvm::Value* k0, llvm::Value* count,
          const std::function<absl::Status(llvm::Value*, llvm::Value*,
                                           llvm::Value*, llvm::Value*)>& body) {
        llvm::Value* end = b->CreateAdd(k0, count);
        return EmitWhileLoop(
            "krun", k0, end,
            [&](llvm::Value* kk) -> absl::StatusOr<llvm::Value*> {
              llvm::Value* kp = b->CreateUDiv(kk, i64(group_in));
              llvm::Value* ci0 =
                  b->CreateSub(kk, b->CreateMul(kp, i64(group_in)));
              llvm::Value* run = b->CreateBinaryIntrinsic(
                  llvm::Intrinsic::smin, b->CreateSub(i64(group_in), ci0),
                  b->CreateSub(end, kk));
              HLOC_RETURN_IF_ERROR(body(kp, ci0, run, b->CreateSub(kk, k0)));
              return b->CreateAdd(kk, run);
            },
            b);
      };

  ElementFn a_elem = [&](llvm::Value* g, llvm::Value* i,
                         llvm::Value* kk) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> mi = m_group.Split(i, b);
    std::vector<llvm::Value*> ki = k_group.Split(kk, b);
    llvm::Value* valid = b->getTrue();
    llvm::Value* off = input_base(g, mi[0], ki[ns]);
    for (int64_t d = 0; d < ns; ++d) {
      off = b->CreateAdd(off, spatial(d, mi[1 + d], ki[d], &valid));
    }
    return load_x(valid, off);
  };
  ElementFn b_elem = [&](llvm::Value* g, llvm::Value* kk,
                         llvm::Value* j) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* feature = b->CreateAdd(j, b->CreateMul(g, i64(per_group)));
    return load_w(b->CreateAdd(
        b->CreateAdd(i64(w_base), k_group.Offset(kk, b)),
        b->CreateMul(feature, i64(ws[dn.kernel_output_feature_dimension]))));
  };
  StoreFn c_store = [&](llvm::Value* g, llvm::Value* i, llvm::Value* j,
                        llvm::Value* v) -> absl::Status {
    llvm::Value* feature = b->CreateAdd(j, b->CreateMul(g, i64(per_group)));
    llvm::Value* off = b->CreateAdd(
        m_group.Offset(i, b),
        b->CreateMul(feature, i64(ys[dn.output_feature_dimension])));
    HLOC_ASSIGN_OR_RETURN(v, elemental.EmitConvert(v, acc, y.element_type()));
    return StoreFlat(y.element_type(), y_base, off, v, b);
  };

  if (depthwise) {
    // Per output row (batch, positions): acc[f] = sum over kernel positions
    // of x[position, f / per_group] * w[position, f], the f loop innermost.
    const int64_t features = out_features;
    const int64_t kernel_positions = kpos_group.size();
    llvm::Value* lo = range->getArg(3);
    llvm::Value* hi = range->getArg(4);
    llvm::Value* row_acc = EmitAlignedMalloc(
        i64(features * ((acc == F64 || acc == S64) ? 8 : 4)), b);
    auto acc_at = [&](llvm::Value* f) {
      return b->CreateInBoundsGEP(acc_type, row_acc, f);
    };
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "row", lo, hi, i64(1),
        [&](llvm::Value* r) -> absl::Status {
          std::vector<llvm::Value*> mi = m_group.Split(r, b);
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "zero", i64(0), i64(features), i64(1),
              [&](llvm::Value* f) {
                b->CreateStore(llvm::Constant::getNullValue(acc_type),
                               acc_at(f));
                return absl::OkStatus();
              },
              b));
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "kpos", i64(0), i64(kernel_positions), i64(1),
              [&](llvm::Value* kp) -> absl::Status {
                std::vector<llvm::Value*> kd = kpos_group.Split(kp, b);
                llvm::Value* valid = b->getTrue();
                llvm::Value* off = input_base(b->getInt64(0), mi[0], i64(0));
                for (int64_t d = 0; d < ns; ++d) {
                  off = b->CreateAdd(off, spatial(d, mi[1 + d], kd[d], &valid));
                }
                llvm::Value* w_off =
                    b->CreateAdd(i64(w_base), kpos_group.Offset(kp, b));
                return EmitIfThenElse(
                    valid,
                    [&]() {
                      return EmitForLoop(
                          "f", i64(0), i64(features), i64(1),
                          [&](llvm::Value* f) -> absl::Status {
                            llvm::Value* group =
                                per_group == 1
                                    ? f
                                    : b->CreateUDiv(f, i64(per_group));
                            HLOC_ASSIGN_OR_RETURN(
                                llvm::Value * xv,
                                load_x(
                                    b->getTrue(),
                                    b->CreateAdd(
                                        off,
                                        b->CreateMul(
                                            group,
                                            i64(xs[dn.input_feature_dimension])))));
                            HLOC_ASSIGN_OR_RETURN(
                                llvm::Value * wv,
                                load_w(b->CreateAdd(
                                    w_off,
                                    b->CreateMul(
                                        f,
                                        i64(ws[dn.kernel_output_feature_dimension])))));
                            llvm::Value* a = b->CreateLoad(acc_type, acc_at(f));
                            llvm::Value* sum =
                                acc_type->isFloatingPointTy()
                                    ? b->CreateIntrinsic(
                                          llvm::Intrinsic::fmuladd, {acc_type},
                                          {xv, wv, a})
                                    : b->CreateAdd(a, b->CreateMul(xv, wv));
                            b->CreateStore(sum, acc_at(f));
                            return absl::OkStatus();
                          },
                          b);
                    },
                    nullptr, b);
              },
              b));
          return EmitForLoop(
              "store", i64(0), i64(features), i64(1),
              [&](llvm::Value* f) -> absl::Status {
                llvm::Value* v = b->CreateLoad(acc_type, acc_at(f));
                HLOC_ASSIGN_OR_RETURN(
                    v, elemental.EmitConvert(v, acc, y.element_type()));
                return StoreFlat(
                    y.element_type(), y_base,
                    b->CreateAdd(
                        m_group.Offset(r, b),
                        b->CreateMul(f, i64(ys[dn.output_feature_dimension]))),
                    v, b);
              },
              b);
        },
        b));
    EmitFree(row_acc, b);
    b->CreateRetVoid();
    const int64_t rows = m_group.size();
    EmitKernelEntry(module, symbol, 3,
                    {{range, rows,
                      ShouldRunParallel(*ctx.options, rows,
                                        y.ElementCount() * kernel_positions)}});
    return absl::OkStatus();
  }

  RowCallbacks rows = MakeRowCallbacks(a_elem, b_elem, c_store, swap, acc_type);
  // Packing without a div/mod chain per element. An input row along K:
  // one validity check and offset per kernel position, then a run over
  // the (contiguous, in NHWC) features.
  auto im2col_along_k = [&](llvm::Value* g, llvm::Value* i, llvm::Value* k0,
                            llvm::Value* count, llvm::Value* dst,
                            int64_t dst_stride, llvm::IRBuilderBase*) {
    std::vector<llvm::Value*> mi = m_group.Split(i, b);
    return for_k_runs(
        k0, count,
        [&](llvm::Value* kp, llvm::Value* ci0, llvm::Value* run,
            llvm::Value* pos) -> absl::Status {
          std::vector<llvm::Value*> kd = kpos_group.Split(kp, b);
          llvm::Value* valid = b->getTrue();
          llvm::Value* off = input_base(g, mi[0], ci0);
          for (int64_t d = 0; d < ns; ++d) {
            off = b->CreateAdd(off, spatial(d, mi[1 + d], kd[d], &valid));
          }
          return EmitForLoop(
              "feature", i64(0), run, i64(1),
              [&](llvm::Value* c) -> absl::Status {
                HLOC_ASSIGN_OR_RETURN(
                    llvm::Value * v,
                    load_x(
                        valid,
                        b->CreateAdd(
                            off, b->CreateMul(
                                     c, i64(xs[dn.input_feature_dimension])))));
                store(dst, b->CreateAdd(pos, c), dst_stride, v);
                return absl::OkStatus();
              },
              b);
        });
  };
  // The kernel along K for one output feature j: a run over the input
  // features per kernel position.
  auto weights_along_k = [&](llvm::Value* g, llvm::Value* j, llvm::Value* k0,
                             llvm::Value* count, llvm::Value* dst,
                             int64_t dst_stride, llvm::IRBuilderBase*) {
    llvm::Value* feature = b->CreateAdd(j, b->CreateMul(g, i64(per_group)));
    llvm::Value* base = b->CreateAdd(
        i64(w_base),
        b->CreateMul(feature, i64(ws[dn.kernel_output_feature_dimension])));
    return for_k_runs(
        k0, count,
        [&](llvm::Value* kp, llvm::Value* ci0, llvm::Value* run,
            llvm::Value* pos) -> absl::Status {
          llvm::Value* off = b->CreateAdd(base, kpos_group.Offset(kp, b));
          return EmitForLoop(
              "feature", i64(0), run, i64(1),
              [&](llvm::Value* c) -> absl::Status {
                HLOC_ASSIGN_OR_RETURN(
                    llvm::Value * v,
                    load_w(b->CreateAdd(
                        off, b->CreateMul(
                                 b->CreateAdd(ci0, c),
                                 i64(ws[dn.kernel_input_feature_dimension])))));
                store(dst, b->CreateAdd(pos, c), dst_stride, v);
                return absl::OkStatus();
              },
              b);
        });
  };
  // An input row along M (for C^T): runs over the last output spatial
  // dimension, with the other dimensions' checks and offsets hoisted.
  const int64_t last_size =
      ns > 0 ? y.dimensions(dn.output_spatial_dimensions[ns - 1]) : 1;
  const DimGroup outer_positions(
      std::vector<int64_t>(m_sizes.begin(), m_sizes.end() - 1),
      std::vector<int64_t>(m_strides.begin(), m_strides.end() - 1));
  auto im2col_along_m = [&](llvm::Value* g, llvm::Value* kk, llvm::Value* i0,
                            llvm::Value* count, llvm::Value* dst,
                            llvm::IRBuilderBase*) {
    std::vector<llvm::Value*> ki = k_group.Split(kk, b);
    llvm::Value* end = b->CreateAdd(i0, count);
    return EmitWhileLoop(
        "mrun", i0, end,
        [&](llvm::Value* i) -> absl::StatusOr<llvm::Value*> {
          llvm::Value* outer = b->CreateUDiv(i, i64(last_size));
          llvm::Value* first =
              b->CreateSub(i, b->CreateMul(outer, i64(last_size)));
          llvm::Value* run = b->CreateBinaryIntrinsic(
              llvm::Intrinsic::smin, b->CreateSub(i64(last_size), first),
              b->CreateSub(end, i));
          std::vector<llvm::Value*> mo = outer_positions.Split(outer, b);
          llvm::Value* valid = b->getTrue();
          llvm::Value* off = input_base(g, mo[0], ki[ns]);
          for (int64_t d = 0; d + 1 < ns; ++d) {
            off = b->CreateAdd(off, spatial(d, mo[1 + d], ki[d], &valid));
          }
          llvm::Value* pos = b->CreateSub(i, i0);
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "position", i64(0), run, i64(1),
              [&](llvm::Value* t) -> absl::Status {
                llvm::Value* v_ok = valid;
                llvm::Value* o =
                    spatial(ns - 1, b->CreateAdd(first, t), ki[ns - 1], &v_ok);
                HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                      load_x(v_ok, b->CreateAdd(off, o)));
                store(dst, b->CreateAdd(pos, t), 1, v);
                return absl::OkStatus();
              },
              b));
          return b->CreateAdd(i, run);
        },
        b);
  };
  if (swap) {
    rows.a_rows = weights_along_k;
    if (ns > 0) rows.b_rows = im2col_along_m;
  } else {
    rows.a_rows = im2col_along_k;
  }
  GemmSpec spec;
  spec.batch = groups;
  spec.m = swap ? n : m;
  spec.n = swap ? m : n;
  spec.k = k;
  spec.acc_type = acc;
  SetPanelPackers(rows.a_rows, rows.b_rows, &spec);
  spec.store_c_row = rows.store;
  HLOC_RETURN_IF_ERROR(EmitGemm(spec, tiling, range, b));
  const int64_t work_items = GemmWorkItems(spec, tiling);
  EmitKernelEntry(
      module, symbol, 3,
      {{range, work_items, GemmRunsParallel(*ctx.options, spec, work_items)}});
  return absl::OkStatus();
}

}  // namespace hloc
