#include "backends/gpu/gemm_config.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/primitive_type.h"

namespace hloc {
namespace {

// `size` elements, `stride` apart (stride 0 when size <= 1: any will do).
struct Group {
  int64_t size = 1;
  int64_t stride = 0;
};

// The dimensions `dims` of `shape` (in this order, the first the most
// significant) as one strided run, or nullopt if they do not collapse.
std::optional<Group> Collapse(const Shape& shape,
                              const std::vector<int64_t>& dims) {
  const std::vector<int64_t> strides = LayoutStrides(shape);
  Group group;
  bool first = true;
  for (int64_t d : dims) {
    int64_t size = shape.dimensions(d);
    if (size == 1) continue;
    // Walking from major to minor, the run so far must step over exactly
    // one whole extent of this dimension.
    if (!first && group.stride != strides[d] * size) return std::nullopt;
    group.size *= size;
    group.stride = strides[d];
    first = false;
  }
  if (group.size <= 1) group.stride = 0;
  return group;
}

std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

std::vector<int64_t> Iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

// A column-major rows x cols BLAS operand: stored as is (rows contiguous)
// or transposed (cols contiguous), with its leading dimension, which BLAS
// requires to be at least the stored matrix's row count.
struct Matrix {
  bool transposed = false;
  int64_t ld = 0;
};

std::optional<Matrix> AsMatrix(const Group& rows, const Group& cols) {
  if (rows.size <= 1 || rows.stride == 1) {
    int64_t ld = cols.size <= 1 ? std::max<int64_t>(1, rows.size) : cols.stride;
    if (ld >= rows.size) return Matrix{false, ld};
  }
  if (cols.size <= 1 || cols.stride == 1) {
    int64_t ld = rows.size <= 1 ? std::max<int64_t>(1, cols.size) : rows.stride;
    if (ld >= cols.size) return Matrix{true, ld};
  }
  return std::nullopt;
}

bool BlasType(PrimitiveType t) {
  return t == F32 || t == F64 || t == BF16 || t == F16 || t == C64 ||
         t == C128;
}

absl::Status Unfit(const std::string& why) {
  return absl::UnimplementedError(absl::StrCat("dot is no BLAS gemm: ", why));
}

}  // namespace

absl::StatusOr<GemmMapping> MapDotToGemm(
    const Shape& lhs, const Shape& rhs, const Shape& out,
    const DotDimensionNumbers& dnums,
    const std::optional<PrecisionConfig>& precision) {
  const PrimitiveType lt = lhs.element_type(), rt = rhs.element_type(),
                      ot = out.element_type();
  // cuBLASLt's combinations (runtime/cublas_gemm.cc CheckGemmStep).
  const bool types_ok = BlasType(lt) && lt == rt &&
                        (ot == lt || (ot == F32 && (lt == BF16 || lt == F16)));
  if (!types_ok) {
    return Unfit(absl::StrCat("cuBLASLt has no ", PrimitiveTypeName(lt), " x ",
                              PrimitiveTypeName(rt), " -> ",
                              PrimitiveTypeName(ot), " gemm"));
  }
  const std::vector<int64_t>& lb = dnums.lhs_batch_dimensions;
  const std::vector<int64_t>& rb = dnums.rhs_batch_dimensions;
  const std::vector<int64_t>& lc = dnums.lhs_contracting_dimensions;
  const std::vector<int64_t>& rc = dnums.rhs_contracting_dimensions;
  const std::vector<int64_t> lf = FreeDims(lhs.rank(), lb, lc);
  const std::vector<int64_t> rf = FreeDims(rhs.rank(), rb, rc);
  const int64_t nb = static_cast<int64_t>(lb.size());
  const int64_t nm = static_cast<int64_t>(lf.size());
  const std::vector<int64_t> ob = Iota(0, nb);
  const std::vector<int64_t> om = Iota(nb, nb + nm);
  const std::vector<int64_t> on = Iota(nb + nm, out.rank());

  struct Named {
    const char* what;
    const Shape* shape;
    const std::vector<int64_t>* dims;
    Group group;
  };
  Named groups[] = {
      {"lhs batch", &lhs, &lb, {}},       {"lhs free", &lhs, &lf, {}},
      {"lhs contracting", &lhs, &lc, {}}, {"rhs batch", &rhs, &rb, {}},
      {"rhs free", &rhs, &rf, {}},        {"rhs contracting", &rhs, &rc, {}},
      {"output batch", &out, &ob, {}},    {"output lhs-free", &out, &om, {}},
      {"output rhs-free", &out, &on, {}}};
  for (Named& g : groups) {
    std::optional<Group> collapsed = Collapse(*g.shape, *g.dims);
    if (!collapsed) {
      return Unfit(absl::StrCat(
          "the ", g.what, " dimensions {", absl::StrJoin(*g.dims, ","),
          "} are not one strided run in layout ", g.shape->ToString()));
    }
    g.group = *collapsed;
  }
  const Group &l_batch = groups[0].group, &l_m = groups[1].group,
              &l_k = groups[2].group, &r_batch = groups[3].group,
              &r_n = groups[4].group, &r_k = groups[5].group,
              &o_batch = groups[6].group, &o_m = groups[7].group,
              &o_n = groups[8].group;

  GemmMapping mapping;
  GemmConfig& c = mapping.config;
  c.batch = o_batch.size;
  c.k = l_k.size;
  c.lhs_type = c.rhs_type = lt;
  c.out_type = ot;
  // Row-major outputs (N contiguous) are the common case, and a bias along
  // N is cuBLASLt's per-row bias only after the swap: prefer it.
  mapping.swap_operands = o_n.size <= 1 || o_n.stride == 1;
  Group a_rows, a_cols, b_rows, b_cols, c_rows, c_cols;
  if (mapping.swap_operands) {
    // C^T (N x M) = rhs^T (N x K) * lhs^T (K x M).
    a_rows = r_n, a_cols = r_k, b_rows = l_k, b_cols = l_m;
    c_rows = o_n, c_cols = o_m;
    c.stride_lhs = r_batch.stride, c.stride_rhs = l_batch.stride;
  } else if (o_m.size <= 1 || o_m.stride == 1) {
    a_rows = l_m, a_cols = l_k, b_rows = r_k, b_cols = r_n;
    c_rows = o_m, c_cols = o_n;
    c.stride_lhs = l_batch.stride, c.stride_rhs = r_batch.stride;
  } else {
    return Unfit(
        absl::StrCat("neither output matrix dimension is contiguous "
                     "in ",
                     out.ToString()));
  }
  c.m = c_rows.size;
  c.n = c_cols.size;
  c.stride_out = o_batch.stride;
  std::optional<Matrix> a = AsMatrix(a_rows, a_cols);
  std::optional<Matrix> b = AsMatrix(b_rows, b_cols);
  std::optional<Matrix> out_matrix = AsMatrix(c_rows, c_cols);
  if (!a || !b) {
    const bool lhs_unfit = (!a) != mapping.swap_operands;
    return Unfit(absl::StrCat(
        "neither matrix dimension of the ", lhs_unfit ? "lhs " : "rhs ",
        (lhs_unfit ? lhs : rhs).ToString(), " is contiguous"));
  }
  if (!out_matrix || out_matrix->transposed) {
    return Unfit("the output matrix is not column-major after the swap");
  }
  c.transpose_lhs = a->transposed;
  c.transpose_rhs = b->transposed;
  c.lda = a->ld;
  c.ldb = b->ld;
  c.ldc = out_matrix->ld;
  // A product this small gains nothing from tensor cores (a launch costs
  // more than its arithmetic), and XLA:GPU computes such dots in full f32:
  // on the H200, jnp.abs(q @ r - b) for a 3x2 QR was 0 there and 1e-4
  // through a TF32 gemm (session 19). Full f32 keeps both the answer and
  // cuBLAS's choice of algorithm from mattering.
  constexpr int64_t kMinTf32MultiplyAdds = 4096;
  c.allow_tf32 = AllowsTf32(lt, precision) &&
                 static_cast<double>(c.m) * c.n * c.k * c.batch >=
                     kMinTf32MultiplyAdds;
  return mapping;
}

}  // namespace hloc
