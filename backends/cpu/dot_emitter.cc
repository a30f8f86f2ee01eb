#include "backends/cpu/dot_emitter.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/loop_emitter.h"
#include "backends/cpu/gemm_emitter.h"
#include "backends/cpu/gemv_emitter.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "passes/fusion/fusion_kinds.h"

namespace hloc {
namespace {

DimGroup Group(const Shape& shape, const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides = LayoutStrides(shape);
  std::vector<int64_t> sizes, s;
  for (int64_t d : dims) {
    sizes.push_back(shape.dimensions(d));
    s.push_back(strides[d]);
  }
  return DimGroup(sizes, s);
}

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

// A matrix view of one operand: element (g, row, col) at
// batch.Offset(g) + rows.Offset(row) + cols.Offset(col).
struct MatrixView {
  DimGroup batch, rows, cols;
};

// How the GEMM reads one dot operand: from buffer `buffer` (of element type
// `type`), with the operand's dimension d `strides[d]` elements apart (0
// for a dimension a broadcast adds), each element converted through
// `converts` (the types of a prologue's converts, first applied first).
struct OperandRead {
  int64_t buffer = 0;
  PrimitiveType type = F32;
  std::vector<int64_t> strides;
  std::vector<PrimitiveType> converts;
};

DimGroup Group(const std::vector<int64_t>& sizes_of,
               const std::vector<int64_t>& strides_of,
               const std::vector<int64_t>& dims) {
  std::vector<int64_t> sizes, strides;
  for (int64_t d : dims) {
    sizes.push_back(sizes_of[d]);
    strides.push_back(strides_of[d]);
  }
  return DimGroup(sizes, strides);
}

// The read of `operand`, a dot operand inside a fusion: a fusion parameter,
// or a prologue of converts, broadcasts, transposes and layout-only copies
// of one (dot-prologue-fusion on the CPU), which the packing follows as
// strides and conversions instead of materialising.
absl::StatusOr<OperandRead> ReadThroughPrologue(const HloInstruction* operand) {
  const int64_t rank = operand->shape().rank();
  // source[d]: the dimension of `value` operand dimension d reads; -1
  // where a broadcast added it.
  std::vector<int64_t> source(rank);
  for (int64_t d = 0; d < rank; ++d) source[d] = d;
  std::vector<PrimitiveType> converts;  // outermost first, reversed below
  const HloInstruction* value = operand;
  while (value->opcode() != HloOpcode::kParameter) {
    const HloInstruction* input = value->operand_count() == 1
                                      ? value->operand(0)
                                      : nullptr;
    switch (value->opcode()) {
      case HloOpcode::kConvert:
        converts.push_back(value->shape().element_type());
        break;
      case HloOpcode::kBroadcast:
        for (int64_t& s : source) {
          if (s < 0) continue;
          const std::vector<int64_t>& dims = value->dimensions();
          auto it = std::find(dims.begin(), dims.end(), s);
          s = it == dims.end() ? -1 : it - dims.begin();
        }
        break;
      case HloOpcode::kTranspose:
        for (int64_t& s : source) {
          if (s >= 0) s = value->dimensions()[s];
        }
        break;
      case HloOpcode::kCopy:
      case HloOpcode::kBitcast:
      case HloOpcode::kReshape:
        // Same dimensions, same values at each index (a copy may change
        // the layout; the parameter's own layout gives the strides).
        if (input == nullptr ||
            !input->shape().SameDimensions(value->shape()) ||
            (value->opcode() != HloOpcode::kCopy &&
             !(input->shape().layout() == value->shape().layout()))) {
          return absl::UnimplementedError(absl::StrCat(
              "dot prologue: ", value->name(), " changes the dimensions"));
        }
        break;
      default:
        return absl::UnimplementedError(
            absl::StrCat("dot prologue: ", value->name(), " (",
                         HloOpcodeString(value->opcode()),
                         ") is no view or convert of a buffer"));
    }
    value = input;
  }
  OperandRead read;
  read.buffer = value->parameter_number();
  read.type = value->shape().element_type();
  const std::vector<int64_t> strides = LayoutStrides(value->shape());
  for (int64_t s : source) read.strides.push_back(s < 0 ? 0 : strides[s]);
  read.converts.assign(converts.rbegin(), converts.rend());
  return read;
}

// How a dot is computed: the one place that picks the engine.
struct DotEngine {
  // Compute C^T = B^T A^T: the GEMM's vectors then run along M; the GEMV's
  // vector is the rhs.
  bool swap = false;
  bool gemv = false;
  GemvSpec gemv_spec;  // its shape and matrix strides; callbacks unset
  GemvPlan gemv_plan;
  GemmTiling tiling;
};

// The GEMV engine (gemv_emitter.h) when one side is a single row or column
// (M = 1, else N = 1 computed transposed), the accumulation is f32 or f64
// and the matrix side is a buffer read in place (no converts but the
// widening the engine does, each of its K and N groups one stride, one of
// them 1). Else the GEMM engine, computing C or C^T, whichever pads its
// register tile less.
DotEngine ChooseDotEngine(const MatrixView& lhs, const MatrixView& rhs,
                          const OperandRead reads[2], PrimitiveType acc,
                          const VectorTarget& target,
                          const CpuCodegenOptions& options) {
  const int64_t m = lhs.rows.size();
  const int64_t n = rhs.cols.size();
  const int64_t k = lhs.cols.size();
  DotEngine engine;
  if ((m == 1 || n == 1) && (acc == F32 || acc == F64)) {
    const bool swap = m != 1;
    const OperandRead& read = reads[swap ? 0 : 1];
    const DimGroup& k_group = swap ? lhs.cols : rhs.rows;
    const DimGroup& n_group = swap ? lhs.rows : rhs.cols;
    GemvSpec spec;
    spec.batch = lhs.batch.size();
    spec.n = swap ? m : n;
    spec.k = k;
    spec.acc_type = acc;
    spec.matrix_type = read.type;
    spec.k_stride = k_group.collapsed_stride();
    spec.n_stride = n_group.collapsed_stride();
    if (read.converts.empty() && spec.k_stride >= 0 && spec.n_stride >= 0 &&
        ChooseGemvPlan(target, options, spec, &engine.gemv_plan)) {
      engine.swap = swap;
      engine.gemv = true;
      engine.gemv_spec = spec;
      return engine;
    }
  }
  engine.tiling = ChooseGemmTiling(target, acc, m, n, k);
  GemmTiling transposed = ChooseGemmTiling(target, acc, n, m, k);
  if (PaddedGemmWork(transposed, n, m, k) <
      PaddedGemmWork(engine.tiling, m, n, k)) {
    engine.swap = true;
    engine.tiling = transposed;
  }
  return engine;
}

}  // namespace

// The tiled GEMM's micro-kernel multiplies real vectors; a complex dot
// (anywhere in the kernel) is left to the loop kernels instead, which sum
// complex products per output element through the elemental emitter.
bool HasComplexDot(const HloInstruction& hlo) {
  auto complex_dot = [](const HloInstruction& i) {
    if (i.opcode() != HloOpcode::kDot) return false;
    if (IsComplexType(i.shape().element_type())) return true;
    for (const HloInstruction* operand : i.operands()) {
      if (IsComplexType(operand->shape().element_type())) return true;
    }
    return false;
  };
  if (hlo.opcode() != HloOpcode::kFusion) return complex_dot(hlo);
  for (const HloInstruction* i : hlo.fused_computation()->instructions()) {
    if (complex_dot(*i)) return true;
  }
  return false;
}

bool IsDotKernel(const HloInstruction& hlo) {
  return (hlo.opcode() == HloOpcode::kDot ||
          (hlo.opcode() == HloOpcode::kFusion &&
           hlo.fusion_kind() == FusionKind::kOutput)) &&
         !HasComplexDot(hlo);
}

absl::Status EmitDotKernel(const HloInstruction& hlo, const std::string& symbol,
                           const OpEmitterContext& ctx) {
  const HloInstruction* dot = &hlo;
  const bool fused = hlo.opcode() == HloOpcode::kFusion;
  if (fused) {
    absl::StatusOr<const HloInstruction*> d =
        AnalyzeDotEpilogue(*hlo.fused_computation());
    if (!d.ok()) return OpUnimplemented(hlo, d.status().message());
    dot = *d;
  }
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray()) {
      return OpUnimplemented(hlo, "an operand is not an array");
    }
  }
  if (!hlo.shape().IsArray()) return OpUnimplemented(hlo, "tuple result");
  // Absent dimension numbers are empty ones (an outer product), as in XLA.
  const DotDimensionNumbers dn =
      dot->attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{});
  // The operands as the dot sees them (after any prologue), and where the
  // packing reads them from.
  const Shape& lhs = dot->operand(0)->shape();
  const Shape& rhs = dot->operand(1)->shape();
  OperandRead reads[2];
  for (int i = 0; i < 2; ++i) {
    if (!fused) {
      reads[i].buffer = i;
      reads[i].type = hlo.operand(i)->shape().element_type();
      reads[i].strides = LayoutStrides(hlo.operand(i)->shape());
      continue;
    }
    absl::StatusOr<OperandRead> read = ReadThroughPrologue(dot->operand(i));
    if (!read.ok()) return OpUnimplemented(hlo, read.status().message());
    reads[i] = *std::move(read);
  }
  const Shape& out = hlo.shape();
  const PrimitiveType dot_type = dot->shape().element_type();
  absl::StatusOr<PrimitiveType> acc_or =
      GemmAccumulationType(lhs.element_type(), rhs.element_type(), dot_type);
  if (!acc_or.ok()) return OpUnimplemented(hlo, acc_or.status().message());
  const PrimitiveType acc = *acc_or;
  llvm::Module* module = ctx.module;
  for (PrimitiveType t : {reads[0].type, reads[1].type, out.element_type()}) {
    if (!StorageType(t, module->getContext()).ok()) {
      return OpUnimplemented(hlo, "element type");
    }
  }

  // Output dimensions: batch..., lhs free..., rhs free... (XLA's order).
  const std::vector<int64_t> lhs_free = DotFreeDimensions(
      lhs.rank(), dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free = DotFreeDimensions(
      rhs.rank(), dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  const int64_t nb = dn.lhs_batch_dimensions.size();
  const int64_t nm = lhs_free.size();
  const int64_t nn = rhs_free.size();
  if (out.rank() != nb + nm + nn) {
    return OpUnimplemented(hlo, "dot result rank");
  }
  const std::vector<int64_t>& ls = reads[0].strides;
  const std::vector<int64_t>& rs = reads[1].strides;
  MatrixView lhs_view{Group(lhs.dimensions(), ls, dn.lhs_batch_dimensions),
                      Group(lhs.dimensions(), ls, lhs_free),
                      Group(lhs.dimensions(), ls,
                            dn.lhs_contracting_dimensions)};
  MatrixView rhs_view{Group(rhs.dimensions(), rs, dn.rhs_batch_dimensions),
                      Group(rhs.dimensions(), rs,
                            dn.rhs_contracting_dimensions),
                      Group(rhs.dimensions(), rs, rhs_free)};
  MatrixView out_view{Group(out, Range(0, nb)), Group(out, Range(nb, nb + nm)),
                      Group(out, Range(nb + nm, nb + nm + nn))};
  const int64_t batch = lhs_view.batch.size();
  const int64_t m = lhs_view.rows.size();
  const int64_t n = rhs_view.cols.size();
  const int64_t k = lhs_view.cols.size();

  const VectorTarget target =
      VectorTargetFor(ctx.options->target_triple, ctx.options->cpu_features);
  DotEngine engine =
      ChooseDotEngine(lhs_view, rhs_view, reads, acc, target, *ctx.options);
  const bool swap = engine.swap;
  // GEMM A is (g, i, kk), GEMM B is (g, kk, j), GEMM C is (g, i, j).
  MatrixView a_view = lhs_view, b_view = rhs_view;
  const OperandRead* a_read = &reads[0];
  const OperandRead* b_read = &reads[1];
  DimGroup c_rows = out_view.rows, c_cols = out_view.cols;
  if (swap) {
    a_view = MatrixView{rhs_view.batch, rhs_view.cols, rhs_view.rows};
    b_view = MatrixView{lhs_view.batch, lhs_view.cols, lhs_view.rows};
    std::swap(a_read, b_read);
    std::swap(c_rows, c_cols);
  }

  const int64_t num_buffers = hlo.operand_count() + 1;
  llvm::Function* range = CreateRangeFunction(
      module, symbol + (engine.gemv ? ".gemv" : ".gemm"), num_buffers);
  llvm::IRBuilder<> builder(&range->getEntryBlock());
  llvm::IRBuilderBase* b = &builder;
  ElementalEmitter elemental(module, b, ctx.math);
  llvm::Value* a_base = range->getArg(a_read->buffer);
  llvm::Value* b_base = range->getArg(b_read->buffer);
  llvm::Value* out_base = range->getArg(num_buffers - 1);
  HLOC_ASSIGN_OR_RETURN(llvm::Type * acc_type,
                        RegisterType(acc, module->getContext()));

  GemmSpec spec;
  spec.batch = batch;
  spec.m = swap ? n : m;
  spec.n = swap ? m : n;
  spec.k = k;
  spec.acc_type = acc;
  // Packing reads each operand in memory order: along the dimension with
  // the smaller stride innermost (a transposed operand is packed walking
  // down its columns).
  auto load = [&](const OperandRead& read, llvm::Value* base, llvm::Value* off,
                  llvm::IRBuilderBase* b) -> absl::StatusOr<llvm::Value*> {
    HLOC_ASSIGN_OR_RETURN(llvm::Value * v, LoadFlat(read.type, base, off, b));
    PrimitiveType type = read.type;
    for (PrimitiveType to : read.converts) {
      HLOC_ASSIGN_OR_RETURN(v, elemental.EmitConvert(v, type, to));
      type = to;
    }
    return elemental.EmitConvert(v, type, acc);
  };
  // True if x moves through memory in smaller steps than y.
  auto smaller_stride = [](const DimGroup& x, const DimGroup& y) {
    return x.collapsed_stride() >= 0 && y.collapsed_stride() >= 0 &&
           x.collapsed_stride() < y.collapsed_stride();
  };
  // Loops (a, b) over [0, na) x [0, nb): b outside if b_outer.
  auto loop2 =
      [](const char* name, llvm::Value* na, llvm::Value* nb, bool b_outer,
         llvm::IRBuilderBase* b,
         const std::function<absl::Status(llvm::Value*, llvm::Value*)>& body) {
        auto inner = [&](llvm::Value* count,
                         const std::function<absl::Status(llvm::Value*)>& f) {
          return EmitForLoop(name, b->getInt64(0), count, b->getInt64(1), f, b);
        };
        if (b_outer) {
          return inner(nb, [&](llvm::Value* y) {
            return inner(na, [&](llvm::Value* x) { return body(x, y); });
          });
        }
        return inner(na, [&](llvm::Value* x) {
          return inner(nb, [&](llvm::Value* y) { return body(x, y); });
        });
      };
  spec.pack_a_panel = [&](llvm::Value* g, llvm::Value* i0, llvm::Value* rows,
                          llvm::Value* k0, llvm::Value* kc, llvm::Value* dst,
                          int64_t mr, llvm::IRBuilderBase* b) {
    llvm::Value* base = a_view.batch.Offset(g, b);
    return loop2(
        "packa.e", rows, kc, smaller_stride(a_view.rows, a_view.cols), b,
        [&](llvm::Value* r, llvm::Value* kk) -> absl::Status {
          llvm::Value* off = b->CreateAdd(
              base, b->CreateAdd(a_view.rows.Offset(b->CreateAdd(i0, r), b),
                                 a_view.cols.Offset(b->CreateAdd(k0, kk), b)));
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, load(*a_read, a_base, off, b));
          b->CreateStore(
              v, b->CreateInBoundsGEP(
                     acc_type, dst,
                     b->CreateAdd(b->CreateMul(kk, b->getInt64(mr)), r)));
          return absl::OkStatus();
        });
  };
  spec.pack_b_panel = [&](llvm::Value* g, llvm::Value* k0, llvm::Value* kc,
                          llvm::Value* j0, llvm::Value* cols, llvm::Value* dst,
                          int64_t nr, llvm::IRBuilderBase* b) {
    llvm::Value* base = b_view.batch.Offset(g, b);
    return loop2(
        "packb.e", kc, cols, smaller_stride(b_view.rows, b_view.cols), b,
        [&](llvm::Value* kk, llvm::Value* t) -> absl::Status {
          llvm::Value* off = b->CreateAdd(
              base, b->CreateAdd(b_view.rows.Offset(b->CreateAdd(k0, kk), b),
                                 b_view.cols.Offset(b->CreateAdd(j0, t), b)));
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, load(*b_read, b_base, off, b));
          b->CreateStore(
              v, b->CreateInBoundsGEP(
                     acc_type, dst,
                     b->CreateAdd(b->CreateMul(kk, b->getInt64(nr)), t)));
          return absl::OkStatus();
        });
  };

  // The value stored at an output element: the dot's value converted to its
  // type, then the epilogue, if any.
  llvm::Value* current = nullptr;  // the dot's value at the element stored
  IrIndex current_index;
  absl::flat_hash_map<const HloInstruction*, ElementGenerator> generators;
  std::function<absl::StatusOr<ElementGenerator>(const HloInstruction*)>
      generator =
          [&](const HloInstruction* instr) -> absl::StatusOr<ElementGenerator> {
    auto it = generators.find(instr);
    if (it != generators.end()) return it->second;
    ElementGenerator g;
    if (instr == dot) {
      g = [&](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
        return current;
      };
    } else if (instr->opcode() == HloOpcode::kParameter) {
      IrArray array(range->getArg(instr->parameter_number()),
                    hlo.operand(instr->parameter_number())->shape());
      g = [array, b](const IrIndex& index) { return array.EmitRead(index, b); };
    } else {
      std::vector<ElementGenerator> operands;
      for (const HloInstruction* operand : instr->operands()) {
        HLOC_ASSIGN_OR_RETURN(ElementGenerator og, generator(operand));
        operands.push_back(std::move(og));
      }
      HLOC_ASSIGN_OR_RETURN(
          g, elemental.MakeElementGenerator(instr, std::move(operands)));
    }
    generators[instr] = g;
    return g;
  };
  ElementGenerator root;
  if (fused) {
    HLOC_ASSIGN_OR_RETURN(
        root, generator(hlo.fused_computation()->root_instruction()));
  }
  spec.store_c_row = [&](llvm::Value* g, llvm::Value* i, llvm::Value* j0,
                         llvm::Value* count, llvm::Value* src,
                         llvm::IRBuilderBase* b) {
    llvm::Value* base = b->CreateAdd(out_view.batch.Offset(g, b),
                                     c_rows.Offset(i, b), "", true, true);
    std::vector<llvm::Value*> batch_index = out_view.batch.Split(g, b);
    std::vector<llvm::Value*> row_index = c_rows.Split(i, b);
    return EmitForLoop(
        "store.t", b->getInt64(0), count, b->getInt64(1),
        [&](llvm::Value* t) -> absl::Status {
          llvm::Value* j = b->CreateAdd(j0, t, "", true, true);
          llvm::Value* off =
              b->CreateAdd(base, c_cols.Offset(j, b), "", true, true);
          llvm::Value* v =
              b->CreateLoad(acc_type, b->CreateInBoundsGEP(acc_type, src, t));
          HLOC_ASSIGN_OR_RETURN(v, elemental.EmitConvert(v, acc, dot_type));
          if (fused) {
            std::vector<llvm::Value*> col_index = c_cols.Split(j, b);
            const std::vector<llvm::Value*>& lhs_index =
                swap ? col_index : row_index;
            const std::vector<llvm::Value*>& rhs_index =
                swap ? row_index : col_index;
            std::vector<llvm::Value*> multidim = batch_index;
            multidim.insert(multidim.end(), lhs_index.begin(), lhs_index.end());
            multidim.insert(multidim.end(), rhs_index.begin(), rhs_index.end());
            current = v;
            HLOC_ASSIGN_OR_RETURN(
                v, root(IrIndex(multidim, off, out, b->getInt64Ty())));
          }
          return StoreFlat(out.element_type(), out_base, off, v, b);
        },
        b);
  };
  if (engine.gemv) {
    // GEMM A is the vector (its one row), B the matrix, read in place; the
    // results are row 0 of GEMM C.
    GemvSpec& gemv = engine.gemv_spec;
    gemv.matrix = b_base;
    gemv.matrix_batch_offset = [&](llvm::Value* g, llvm::IRBuilderBase* b) {
      return b_view.batch.Offset(g, b);
    };
    gemv.load_x = [&](llvm::Value* g, llvm::Value* kk, llvm::IRBuilderBase* b) {
      return load(
          *a_read, a_base,
          b->CreateAdd(a_view.batch.Offset(g, b), a_view.cols.Offset(kk, b)),
          b);
    };
    gemv.store_c = [&](llvm::Value* g, llvm::Value* j0, llvm::Value* count,
                       llvm::Value* src, llvm::IRBuilderBase* b) {
      return spec.store_c_row(g, b->getInt64(0), j0, count, src, b);
    };
    HLOC_RETURN_IF_ERROR(EmitGemv(gemv, engine.gemv_plan, range, b));
    const int64_t work_items = GemvWorkItems(gemv, engine.gemv_plan);
    EmitKernelEntry(module, symbol, num_buffers,
                    {{range, work_items,
                      GemvRunsParallel(*ctx.options, gemv, work_items)}});
    return absl::OkStatus();
  }
  HLOC_RETURN_IF_ERROR(EmitGemm(spec, engine.tiling, range, b));
  const int64_t work_items = GemmWorkItems(spec, engine.tiling);
  EmitKernelEntry(
      module, symbol, num_buffers,
      {{range, work_items, GemmRunsParallel(*ctx.options, spec, work_items)}});
  return absl::OkStatus();
}

}  // namespace hloc
