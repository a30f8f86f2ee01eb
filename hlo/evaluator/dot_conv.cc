// dot, ragged-dot and convolution. Operands are rearranged into a canonical
// order (dot: [batch, m, k] x [batch, k, n]; convolution: [batch, spatial...,
// feature] x [spatial..., in, out]), converted to the accumulation type (f32
// for f16/bf16/f32, f64, the complex type, or wrapping u64 for integers and
// pred), multiplied with every output element summing its products in order
// of the contracting index, and converted to the result type once. Rows of the
// output are split across threads; each output element is computed by one
// thread in the same order, so results do not depend on the thread count.
#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/kernel_util.h"
#include "hlo/evaluator/kernels.h"
#include "hlo/evaluator/strided_copy.h"
#include "hlo/evaluator/window_positions.h"
#include "hlo/ragged_dot.h"

namespace hloc {
namespace eval {
namespace {

// The type products are summed in: complex if anything is complex, else
// floating point if anything is (f64 if anything is f64, else f32), else
// wrapping 64-bit integers. Operands convert to it directly (as XLA's operand
// upcasting and result casting do), and the sum converts to the result type
// once.
PrimitiveType AccumulationType(PrimitiveType lhs, PrimitiveType rhs,
                               PrimitiveType result) {
  bool complex = false, floating = false, wide = false;
  for (PrimitiveType t : {lhs, rhs, result}) {
    complex |= IsComplexType(t);
    floating |= IsFloatingPointType(t);
    wide |= t == F64 || t == C128;
  }
  if (complex) return wide ? C128 : C64;
  if (floating) return wide ? F64 : F32;
  return U64;
}

absl::StatusOr<Literal> Convert(Literal value, PrimitiveType to) {
  if (value.element_type() == to) return value;
  absl::StatusOr<ElementwiseFn> fn =
      SelectElementwiseKernel(HloOpcode::kConvert, {value.element_type()}, to);
  if (!fn.ok()) return fn.status();
  Shape shape = value.shape();
  shape.set_element_type(to);
  Literal out(shape);
  const int64_t in_width = ByteWidth(value.element_type());
  const int64_t out_width = ByteWidth(to);
  const uint8_t* in = value.untyped_data();
  uint8_t* o = out.untyped_data();
  const ElementwiseFn kernel = *fn;
  ParallelFor(out.element_count(), 1 << 16, [&](int64_t begin, int64_t end) {
    const void* ins[1] = {in + begin * in_width};
    kernel(ins, o + begin * out_width, end - begin, KernelAttrs{});
  });
  return out;
}

// `value` (of `shape`) with its dimensions in `order`, converted to the
// accumulation type.
absl::StatusOr<Literal> Canonicalize(const Literal& value, const Shape& shape,
                                     const std::vector<int64_t>& order,
                                     PrimitiveType acc_type) {
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  std::vector<int64_t> dims, src_strides;
  for (int64_t d : order) {
    dims.push_back(shape.dimensions(d));
    src_strides.push_back(strides[d]);
  }
  Literal permuted(Shape::Array(shape.element_type(), dims));
  CopyStrided(dims, value.untyped_data(), 0, src_strides,
              permuted.untyped_data(), 0, RowMajorStrides(dims),
              ByteWidth(shape.element_type()));
  return Convert(std::move(permuted), acc_type);
}

// --- Matrix multiplication: C[m, n] += sum_k A[m, k] * B[k, n] ------------

typedef float V8f __attribute__((vector_size(32)));

inline V8f Load8(const float* p) {
  V8f v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void Store8(float* p, V8f v) { std::memcpy(p, &v, sizeof v); }

// Rows [row_begin, row_end) of an f32 product. C tiles of 4 x 8 stay in
// registers over a block of k, loaded from and stored back to C, so every
// element still sums its products in order of k.
void MatMulF32(const float* a, const float* b, float* c, int64_t n, int64_t k,
               int64_t row_begin, int64_t row_end) {
  constexpr int64_t kKc = 256;
  std::vector<float> panel(kKc * 8);
  const int64_t n8 = n - n % 8;
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = std::min(kKc, k - k0);
    for (int64_t j0 = 0; j0 < n8; j0 += 8) {
      for (int64_t kk = 0; kk < kc; ++kk) {
        std::memcpy(&panel[kk * 8], b + (k0 + kk) * n + j0, 8 * sizeof(float));
      }
      int64_t i = row_begin;
      for (; i + 4 <= row_end; i += 4) {
        const float* a0 = a + i * k + k0;
        const float* a1 = a0 + k;
        const float* a2 = a1 + k;
        const float* a3 = a2 + k;
        float* c0 = c + i * n + j0;
        V8f r0 = Load8(c0), r1 = Load8(c0 + n), r2 = Load8(c0 + 2 * n),
            r3 = Load8(c0 + 3 * n);
        for (int64_t kk = 0; kk < kc; ++kk) {
          const V8f bv = Load8(&panel[kk * 8]);
          r0 += a0[kk] * bv;
          r1 += a1[kk] * bv;
          r2 += a2[kk] * bv;
          r3 += a3[kk] * bv;
        }
        Store8(c0, r0);
        Store8(c0 + n, r1);
        Store8(c0 + 2 * n, r2);
        Store8(c0 + 3 * n, r3);
      }
      for (; i < row_end; ++i) {
        const float* a0 = a + i * k + k0;
        float* c0 = c + i * n + j0;
        V8f r0 = Load8(c0);
        for (int64_t kk = 0; kk < kc; ++kk)
          r0 += a0[kk] * Load8(&panel[kk * 8]);
        Store8(c0, r0);
      }
    }
    for (int64_t i = row_begin; i < row_end; ++i) {
      for (int64_t kk = k0; kk < k0 + kc; ++kk) {
        const float av = a[i * k + kk];
        for (int64_t j = n8; j < n; ++j) c[i * n + j] += av * b[kk * n + j];
      }
    }
  }
}

// a * b as XLA and the code generators multiply: complex products by
// ComplexMultiply (kernel_util.h), not std::complex's operator*, whose C99
// Annex G recovery of infinities gives (-inf + nan i)^2 = (inf, nan) where
// XLA's is (nan, nan); elementwise multiplies already do.
template <typename T>
inline T Product(T a, T b) {
  if constexpr (kIsComplex<T>) {
    return ComplexMultiply(a, b);
  } else {
    return a * b;
  }
}

template <typename T>
void MatMulGeneric(const T* a, const T* b, T* c, int64_t n, int64_t k,
                   int64_t row_begin, int64_t row_end) {
  constexpr int64_t kKc = 128, kNc = 512;
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t k1 = std::min(k, k0 + kKc);
    for (int64_t j0 = 0; j0 < n; j0 += kNc) {
      const int64_t j1 = std::min(n, j0 + kNc);
      for (int64_t i = row_begin; i < row_end; ++i) {
        T* cr = c + i * n;
        for (int64_t kk = k0; kk < k1; ++kk) {
          const T av = a[i * k + kk];
          const T* br = b + kk * n;
          for (int64_t j = j0; j < j1; ++j) cr[j] += Product(av, br[j]);
        }
      }
    }
  }
}

template <typename T>
void MatMul(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k) {
  const int64_t work_per_row = std::max<int64_t>(1, n * k);
  const int64_t grain = std::max<int64_t>(4, (1 << 22) / work_per_row);
  ParallelFor(m, grain, [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<T, float>) {
      MatMulF32(a, b, c, n, k, begin, end);
    } else {
      MatMulGeneric<T>(a, b, c, n, k, begin, end);
    }
  });
}

template <typename Fn>
bool DispatchAcc(PrimitiveType acc, Fn&& fn) {
  switch (acc) {
    case F32:
      fn(float{});
      return true;
    case F64:
      fn(double{});
      return true;
    case C64:
      fn(std::complex<float>{});
      return true;
    case C128:
      fn(std::complex<double>{});
      return true;
    case U64:
      fn(uint64_t{});
      return true;
    default:
      return false;
  }
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

}  // namespace

namespace {

// lhs x rhs contracted as `dn` says, into `shape` (`instr` names the
// errors).
absl::StatusOr<Literal> Dot(const HloInstruction& instr, const Literal& lhs,
                            const Shape& lhs_shape, const Literal& rhs,
                            const Shape& rhs_shape,
                            const DotDimensionNumbers& dn, const Shape& shape) {
  std::vector<int64_t> lhs_used = dn.lhs_batch_dimensions;
  lhs_used.insert(lhs_used.end(), dn.lhs_contracting_dimensions.begin(),
                  dn.lhs_contracting_dimensions.end());
  std::vector<int64_t> rhs_used = dn.rhs_batch_dimensions;
  rhs_used.insert(rhs_used.end(), dn.rhs_contracting_dimensions.begin(),
                  dn.rhs_contracting_dimensions.end());
  if (dn.lhs_batch_dimensions.size() != dn.rhs_batch_dimensions.size() ||
      dn.lhs_contracting_dimensions.size() !=
          dn.rhs_contracting_dimensions.size() ||
      !ValidDimensions(lhs_used, lhs_shape.rank()) ||
      !ValidDimensions(rhs_used, rhs_shape.rank()) || !shape.IsArray()) {
    return InstructionError(instr, "dot dimension numbers do not pair up");
  }
  int64_t batch = 1, m = 1, n = 1, k = 1;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
    const int64_t l = lhs_shape.dimensions(dn.lhs_batch_dimensions[i]);
    if (l != rhs_shape.dimensions(dn.rhs_batch_dimensions[i])) {
      return InstructionError(instr, "dot batch dimensions differ in size");
    }
    batch *= l;
  }
  for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
    const int64_t l = lhs_shape.dimensions(dn.lhs_contracting_dimensions[i]);
    if (l != rhs_shape.dimensions(dn.rhs_contracting_dimensions[i])) {
      return InstructionError(instr,
                              "dot contracting dimensions differ in size");
    }
    k *= l;
  }
  const std::vector<int64_t> lhs_free = FreeDims(
      lhs_shape.rank(), dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free = FreeDims(
      rhs_shape.rank(), dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  for (int64_t d : lhs_free) m *= lhs_shape.dimensions(d);
  for (int64_t d : rhs_free) n *= rhs_shape.dimensions(d);
  if (batch * m * n != shape.ElementCount()) {
    return InstructionError(instr, "dot result has the wrong size");
  }
  std::vector<int64_t> lhs_order = dn.lhs_batch_dimensions;
  lhs_order.insert(lhs_order.end(), lhs_free.begin(), lhs_free.end());
  lhs_order.insert(lhs_order.end(), dn.lhs_contracting_dimensions.begin(),
                   dn.lhs_contracting_dimensions.end());
  std::vector<int64_t> rhs_order = dn.rhs_batch_dimensions;
  rhs_order.insert(rhs_order.end(), dn.rhs_contracting_dimensions.begin(),
                   dn.rhs_contracting_dimensions.end());
  rhs_order.insert(rhs_order.end(), rhs_free.begin(), rhs_free.end());

  const PrimitiveType result_type = shape.element_type();
  const PrimitiveType acc_type = AccumulationType(
      lhs_shape.element_type(), rhs_shape.element_type(), result_type);
  absl::StatusOr<Literal> a = Canonicalize(lhs, lhs_shape, lhs_order, acc_type);
  if (!a.ok()) return InstructionError(instr, a.status().message());
  absl::StatusOr<Literal> b = Canonicalize(rhs, rhs_shape, rhs_order, acc_type);
  if (!b.ok()) return InstructionError(instr, b.status().message());
  Literal c(Shape::Array(acc_type, {batch, m, n}));
  DispatchAcc(acc_type, [&](auto t) {
    using T = decltype(t);
    const T* ap = a->data<T>().data();
    const T* bp = b->data<T>().data();
    T* cp = c.data<T>().data();
    for (int64_t g = 0; g < batch; ++g) {
      MatMul<T>(ap + g * m * k, bp + g * k * n, cp + g * m * n, m, n, k);
    }
  });
  absl::StatusOr<Literal> out = Convert(std::move(c), result_type);
  if (!out.ok()) return InstructionError(instr, out.status().message());
  *out->mutable_shape_do_not_use() = shape;
  return out;
}

// Which groups hold each index of the ragged dimension: for ragged-dot's
// group_sizes [prefix.., g] (or [g]), member(p, r, i) says whether index r
// of the ragged dimension, at prefix position p (the linear index into
// group_sizes' leading dimensions), is in group i: start <= r < start +
// size, start the sum of the sizes before i.
class GroupMembership {
 public:
  GroupMembership(const Literal& group_sizes, int64_t extent)
      : groups_(group_sizes.shape().dimensions(group_sizes.shape().rank() - 1)),
        extent_(extent) {
    const int64_t prefixes =
        groups_ == 0 ? 0 : group_sizes.element_count() / groups_;
    member_.assign(prefixes * extent_ * groups_, 0);
    for (int64_t p = 0; p < prefixes; ++p) {
      int64_t start = 0;
      for (int64_t i = 0; i < groups_; ++i) {
        const int64_t end = start + group_sizes.GetAsInt64(p * groups_ + i);
        for (int64_t r = std::max<int64_t>(start, 0);
             r < std::min(end, extent_); ++r) {
          member_[(p * extent_ + r) * groups_ + i] = 1;
        }
        start = end;
      }
    }
  }
  bool operator()(int64_t prefix, int64_t r, int64_t i) const {
    return member_[(prefix * extent_ + r) * groups_ + i] != 0;
  }

 private:
  int64_t groups_, extent_;
  std::vector<uint8_t> member_;
};

// The coordinates of `linear` (row-major) in `dims`.
std::vector<int64_t> Unflatten(int64_t linear,
                               const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    index[d] = dims[d] == 0 ? 0 : linear % dims[d];
    linear = dims[d] == 0 ? 0 : linear / dims[d];
  }
  return index;
}

std::vector<int64_t> SizesOf(const Shape& shape,
                             const std::vector<int64_t>& dims) {
  std::vector<int64_t> sizes;
  for (int64_t d : dims) sizes.push_back(shape.dimensions(d));
  return sizes;
}

// Where a canonical index of the lhs falls for group_sizes: `first`
// and `rest` are the lhs dimensions (in the canonical order) the two
// canonical coordinates run over; the ragged dimension is one of
// `rest`. Gives the ragged coordinate and the prefix position (the
// coordinates of the prefix dimensions, linear in group_sizes' order).
struct RaggedPosition {
  int64_t ragged;
  int64_t prefix;
};
RaggedPosition Locate(const Shape& lhs, const RaggedDotGeometry& g,
                      const std::vector<int64_t>& first_dims, int64_t first,
                      const std::vector<int64_t>& rest_dims, int64_t rest) {
  const std::vector<int64_t> a = Unflatten(first, SizesOf(lhs, first_dims));
  const std::vector<int64_t> b = Unflatten(rest, SizesOf(lhs, rest_dims));
  auto coordinate = [&](int64_t dim) {
    for (size_t i = 0; i < first_dims.size(); ++i) {
      if (first_dims[i] == dim) return a[i];
    }
    for (size_t i = 0; i < rest_dims.size(); ++i) {
      if (rest_dims[i] == dim) return b[i];
    }
    return int64_t{0};
  };
  RaggedPosition at{coordinate(g.lhs_ragged_dim), 0};
  for (int64_t d : g.lhs_prefix) {
    at.prefix = at.prefix * lhs.dimensions(d) + coordinate(d);
  }
  return at;
}

}  // namespace

absl::StatusOr<Literal> EvaluateDot(const HloInstruction& instr,
                                    OperandValues& operands) {
  if (!instr.attrs().dot_dimension_numbers.has_value()) {
    return InstructionError(instr, "dot needs dimension numbers");
  }
  return Dot(instr, operands.Get(0), instr.operand(0)->shape(), operands.Get(1),
             instr.operand(1)->shape(), *instr.attrs().dot_dimension_numbers,
             instr.shape());
}

// A reference independent of the compilers' expansion (passes/
// ragged_dot_expander.h, masked copies of the operands and one dot): for
// each index of the ragged dimension, the products of the groups that
// hold it, summed in order of the contracting index, groups in order.
absl::StatusOr<Literal> EvaluateRaggedDot(const HloInstruction& instr,
                                          OperandValues& operands) {
  if (instr.operand_count() != 3 ||
      !instr.attrs().ragged_dot_dimension_numbers.has_value()) {
    return InstructionError(instr,
                            "ragged-dot needs three operands and dimension "
                            "numbers");
  }
  const Shape& lhs_shape = instr.operand(0)->shape();
  const Shape& rhs_shape = instr.operand(1)->shape();
  const Shape& shape = instr.shape();
  const RaggedDotDimensionNumbers& rdn =
      *instr.attrs().ragged_dot_dimension_numbers;
  absl::StatusOr<Shape> inferred =
      InferRaggedDotShape(lhs_shape, rhs_shape, instr.operand(2)->shape(), rdn,
                          shape.element_type());
  if (!inferred.ok()) {
    return InstructionError(instr, inferred.status().message());
  }
  if (inferred->dimensions() != shape.dimensions()) {
    return InstructionError(instr, "ragged-dot result has the wrong shape");
  }
  absl::StatusOr<RaggedDotGeometry> geometry =
      AnalyzeRaggedDot(lhs_shape, rhs_shape, instr.operand(2)->shape(), rdn);
  if (!geometry.ok()) {
    return InstructionError(instr, geometry.status().message());
  }
  const RaggedDotGeometry& g = *geometry;
  if (g.mode == RaggedDotMode::kBatch) {
    return Dot(instr, operands.Get(0), lhs_shape, operands.Get(1), rhs_shape,
               g.dot, shape);
  }
  const DotDimensionNumbers& dn = rdn.dot_dimension_numbers;
  const std::vector<int64_t>& lb = dn.lhs_batch_dimensions;
  const std::vector<int64_t>& lc = dn.lhs_contracting_dimensions;
  const std::vector<int64_t> lhs_free = FreeDims(lhs_shape.rank(), lb, lc);
  // Canonical operands: lhs [B, M, K]; rhs [G, B, K, N] with a group
  // dimension (kNonContracting), else [B, K, N].
  std::vector<int64_t> rhs_lead = dn.rhs_batch_dimensions;
  if (g.mode == RaggedDotMode::kNonContracting) {
    rhs_lead.insert(rhs_lead.begin(), g.rhs_group_dim);
  }
  std::vector<int64_t> rhs_skip = rhs_lead;
  rhs_skip.insert(rhs_skip.end(), dn.rhs_contracting_dimensions.begin(),
                  dn.rhs_contracting_dimensions.end());
  const std::vector<int64_t> rhs_free =
      FreeDims(rhs_shape.rank(), rhs_skip, {});
  auto product = [&](const std::vector<int64_t>& dims, const Shape& s) {
    int64_t p = 1;
    for (int64_t d : dims) p *= s.dimensions(d);
    return p;
  };
  const int64_t B = product(lb, lhs_shape), M = product(lhs_free, lhs_shape),
                K = product(lc, lhs_shape), N = product(rhs_free, rhs_shape),
                G = g.num_groups;
  std::vector<int64_t> lhs_order = lb;
  lhs_order.insert(lhs_order.end(), lhs_free.begin(), lhs_free.end());
  lhs_order.insert(lhs_order.end(), lc.begin(), lc.end());
  std::vector<int64_t> rhs_order = rhs_lead;
  rhs_order.insert(rhs_order.end(), dn.rhs_contracting_dimensions.begin(),
                   dn.rhs_contracting_dimensions.end());
  rhs_order.insert(rhs_order.end(), rhs_free.begin(), rhs_free.end());
  const PrimitiveType result_type = shape.element_type();
  const PrimitiveType acc_type = AccumulationType(
      lhs_shape.element_type(), rhs_shape.element_type(), result_type);
  absl::StatusOr<Literal> a =
      Canonicalize(operands.Get(0), lhs_shape, lhs_order, acc_type);
  if (!a.ok()) return InstructionError(instr, a.status().message());
  absl::StatusOr<Literal> b =
      Canonicalize(operands.Get(1), rhs_shape, rhs_order, acc_type);
  if (!b.ok()) return InstructionError(instr, b.status().message());
  const GroupMembership member(operands.Get(2),
                               lhs_shape.dimensions(g.lhs_ragged_dim));
  Literal c(Shape::Array(acc_type, {shape.ElementCount()}));
  const bool non_contracting = g.mode == RaggedDotMode::kNonContracting;
  DispatchAcc(acc_type, [&](auto t) {
    using T = decltype(t);
    const T* ap = a->data<T>().data();
    const T* bp = b->data<T>().data();
    T* cp = c.data<T>().data();
    if (non_contracting) {
      // Row (batch, m) of the result: its lhs row times the rhs of each
      // group holding its ragged index.
      ParallelFor(B * M, 16, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const int64_t batch = row / M;
          const RaggedPosition at =
              Locate(lhs_shape, g, lb, batch, lhs_free, row % M);
          T* out = cp + row * N;
          for (int64_t i = 0; i < G; ++i) {
            if (!member(at.prefix, at.ragged, i)) continue;
            const T* w = bp + (i * B + batch) * K * N;
            for (int64_t k = 0; k < K; ++k) {
              const T x = ap[row * K + k];
              for (int64_t j = 0; j < N; ++j) {
                out[j] += Product(x, w[k * N + j]);
              }
            }
          }
        }
      });
      return;
    }
    // Result [G, B, M, N]: group i sums the terms whose ragged contracting
    // index it holds (which those are depends on the batch and the term).
    std::vector<uint8_t> holds(G * B * K);
    for (int64_t batch = 0; batch < B; ++batch) {
      for (int64_t k = 0; k < K; ++k) {
        const RaggedPosition at = Locate(lhs_shape, g, lb, batch, lc, k);
        for (int64_t i = 0; i < G; ++i) {
          holds[(i * B + batch) * K + k] = member(at.prefix, at.ragged, i);
        }
      }
    }
    ParallelFor(G * B * M, 16, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t i = row / (B * M);
        const int64_t batch = (row / M) % B;
        const int64_t m = row % M;
        T* out = cp + row * N;
        for (int64_t k = 0; k < K; ++k) {
          if (!holds[(i * B + batch) * K + k]) continue;
          const T x = ap[(batch * M + m) * K + k];
          const T* w = bp + (batch * K + k) * N;
          for (int64_t j = 0; j < N; ++j) out[j] += Product(x, w[j]);
        }
      }
    });
  });
  absl::StatusOr<Literal> out = Convert(std::move(c), result_type);
  if (!out.ok()) return InstructionError(instr, out.status().message());
  *out->mutable_shape_do_not_use() = shape;
  return out;
}

namespace {

template <typename T>
void ConvolveRows(const T* x, const T* w, T* y, int64_t rows_begin,
                  int64_t rows_end, const std::vector<int64_t>& out_spatial,
                  const std::vector<int64_t>& in_spatial,
                  const std::vector<WindowDimension>& windows,
                  const std::vector<int64_t>& kernel_sizes,
                  const std::vector<bool>& reversal, int64_t in_features,
                  int64_t group_in, int64_t out_features,
                  int64_t out_per_feature_group, int64_t out_per_batch_group,
                  int64_t out_batch) {
  const int64_t ns = out_spatial.size();
  int64_t out_positions = 1, in_positions = 1;
  for (int64_t s : out_spatial) out_positions *= s;
  for (int64_t s : in_spatial) in_positions *= s;
  const std::vector<int64_t> in_strides = RowMajorStrides(in_spatial);
  const std::vector<int64_t> k_strides = RowMajorStrides(kernel_sizes);
  std::vector<int64_t> opos(ns);
  // Per spatial dimension, the kernel and input offsets of this row's
  // window positions that read the input, in increasing kernel position.
  std::vector<std::vector<int64_t>> k_offs(ns), in_offs(ns);
  absl::InlinedVector<size_t, 8> pos(ns);
  for (int64_t row = rows_begin; row < rows_end; ++row) {
    const int64_t nb = row / out_positions;
    int64_t rem = row % out_positions;
    for (int64_t d = ns - 1; d >= 0; --d) {
      opos[d] = rem % out_spatial[d];
      rem /= out_spatial[d];
    }
    bool empty = false;
    for (int64_t d = 0; d < ns; ++d) {
      k_offs[d].clear();
      in_offs[d].clear();
      ForEachWindowPosition(
          windows[d], in_spatial[d], opos[d], [&](int64_t kd, int64_t c) {
            k_offs[d].push_back((reversal[d] ? kernel_sizes[d] - 1 - kd : kd) *
                                k_strides[d]);
            in_offs[d].push_back(c * in_strides[d]);
          });
      empty = empty || k_offs[d].empty();
    }
    if (empty) continue;
    T* acc = y + row * out_features;
    for (int64_t o0 = 0; o0 < out_features;) {
      const int64_t fg = o0 / out_per_feature_group;
      const int64_t bg = o0 / out_per_batch_group;
      const int64_t o1 = std::min((fg + 1) * out_per_feature_group,
                                  (bg + 1) * out_per_batch_group);
      const int64_t in_batch = nb + bg * out_batch;
      const T* xb = x + in_batch * in_positions * in_features + fg * group_in;
      // The valid kernel positions in row-major order, the order the sum
      // has always been taken in.
      std::fill(pos.begin(), pos.end(), 0);
      while (true) {
        int64_t in_off = 0, k_off = 0;
        for (int64_t d = 0; d < ns; ++d) {
          in_off += in_offs[d][pos[d]];
          k_off += k_offs[d][pos[d]];
        }
        const T* xv = xb + in_off * in_features;
        const T* wk = w + k_off * group_in * out_features;
        for (int64_t ci = 0; ci < group_in; ++ci) {
          const T xs = xv[ci];
          const T* wr = wk + ci * out_features;
          for (int64_t o = o0; o < o1; ++o) acc[o] += Product(xs, wr[o]);
        }
        int64_t d = ns - 1;
        for (; d >= 0; --d) {
          if (++pos[d] < k_offs[d].size()) break;
          pos[d] = 0;
        }
        if (d < 0) break;
      }
      o0 = o1;
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateConvolution(const HloInstruction& instr,
                                            OperandValues& operands) {
  if (!instr.attrs().convolution_dimension_numbers.has_value()) {
    return InstructionError(instr, "convolution needs dimension numbers");
  }
  const ConvolutionDimensionNumbers& dn =
      *instr.attrs().convolution_dimension_numbers;
  // XLA omits the empty window of a convolution without spatial
  // dimensions.
  const Window window = instr.attrs().window.value_or(Window{});
  const Shape& x_shape = instr.operand(0)->shape();
  const Shape& w_shape = instr.operand(1)->shape();
  const Shape& shape = instr.shape();
  const int64_t ns = dn.input_spatial_dimensions.size();
  if (static_cast<int64_t>(dn.kernel_spatial_dimensions.size()) != ns ||
      static_cast<int64_t>(dn.output_spatial_dimensions.size()) != ns ||
      static_cast<int64_t>(window.dimensions.size()) != ns) {
    return InstructionError(instr, "convolution spatial dimensions disagree");
  }
  std::vector<int64_t> x_dims = {dn.input_batch_dimension,
                                 dn.input_feature_dimension};
  x_dims.insert(x_dims.end(), dn.input_spatial_dimensions.begin(),
                dn.input_spatial_dimensions.end());
  std::vector<int64_t> w_dims = {dn.kernel_input_feature_dimension,
                                 dn.kernel_output_feature_dimension};
  w_dims.insert(w_dims.end(), dn.kernel_spatial_dimensions.begin(),
                dn.kernel_spatial_dimensions.end());
  std::vector<int64_t> y_all = {dn.output_batch_dimension,
                                dn.output_feature_dimension};
  y_all.insert(y_all.end(), dn.output_spatial_dimensions.begin(),
               dn.output_spatial_dimensions.end());
  if (instr.operand_count() != 2 || !shape.IsArray() ||
      x_shape.rank() != ns + 2 || w_shape.rank() != ns + 2 ||
      shape.rank() != ns + 2 || !ValidDimensions(x_dims, x_shape.rank()) ||
      !ValidDimensions(w_dims, w_shape.rank()) ||
      !ValidDimensions(y_all, shape.rank())) {
    return InstructionError(instr, "invalid convolution dimension numbers");
  }
  const int64_t groups = instr.attrs().feature_group_count;
  const int64_t batch_groups = instr.attrs().batch_group_count;
  const int64_t in_batch = x_shape.dimensions(dn.input_batch_dimension);
  const int64_t in_features = x_shape.dimensions(dn.input_feature_dimension);
  const int64_t group_in =
      w_shape.dimensions(dn.kernel_input_feature_dimension);
  const int64_t out_features =
      w_shape.dimensions(dn.kernel_output_feature_dimension);
  const int64_t out_batch = shape.dimensions(dn.output_batch_dimension);
  if (groups < 1 || batch_groups < 1 || in_features != group_in * groups ||
      out_features % groups != 0 || out_features % batch_groups != 0 ||
      in_batch != out_batch * batch_groups ||
      shape.dimensions(dn.output_feature_dimension) != out_features) {
    return InstructionError(instr,
                            "convolution feature or batch groups disagree");
  }
  std::vector<int64_t> x_order = {dn.input_batch_dimension};
  x_order.insert(x_order.end(), dn.input_spatial_dimensions.begin(),
                 dn.input_spatial_dimensions.end());
  x_order.push_back(dn.input_feature_dimension);
  std::vector<int64_t> w_order = dn.kernel_spatial_dimensions;
  w_order.push_back(dn.kernel_input_feature_dimension);
  w_order.push_back(dn.kernel_output_feature_dimension);

  std::vector<int64_t> in_spatial, out_spatial, kernel_sizes;
  std::vector<WindowDimension> windows;
  std::vector<bool> reversal;
  for (int64_t d = 0; d < ns; ++d) {
    const WindowDimension& wd = window.dimensions[d];
    if (wd.stride <= 0 || wd.base_dilation <= 0 || wd.window_dilation <= 0) {
      return InstructionError(instr, "bad convolution window");
    }
    in_spatial.push_back(x_shape.dimensions(dn.input_spatial_dimensions[d]));
    out_spatial.push_back(shape.dimensions(dn.output_spatial_dimensions[d]));
    kernel_sizes.push_back(w_shape.dimensions(dn.kernel_spatial_dimensions[d]));
    // The kernel's extent along the dimension is the window's size.
    WindowDimension positions = wd;
    positions.size = kernel_sizes.back();
    windows.push_back(positions);
    reversal.push_back(wd.window_reversal);
  }

  const PrimitiveType result_type = shape.element_type();
  const PrimitiveType acc_type = AccumulationType(
      x_shape.element_type(), w_shape.element_type(), result_type);
  absl::StatusOr<Literal> x =
      Canonicalize(operands.Get(0), x_shape, x_order, acc_type);
  if (!x.ok()) return InstructionError(instr, x.status().message());
  absl::StatusOr<Literal> w =
      Canonicalize(operands.Get(1), w_shape, w_order, acc_type);
  if (!w.ok()) return InstructionError(instr, w.status().message());
  std::vector<int64_t> y_dims = {out_batch};
  y_dims.insert(y_dims.end(), out_spatial.begin(), out_spatial.end());
  y_dims.push_back(out_features);
  Literal y(Shape::Array(acc_type, y_dims));
  int64_t rows = out_batch;
  for (int64_t s : out_spatial) rows *= s;
  const int64_t out_per_feature_group = out_features / groups;
  const int64_t out_per_batch_group = out_features / batch_groups;
  if (out_features > 0) {
    DispatchAcc(acc_type, [&](auto t) {
      using T = decltype(t);
      const T* xp = x->data<T>().data();
      const T* wp = w->data<T>().data();
      T* yp = y.data<T>().data();
      ParallelFor(rows, 64, [&](int64_t begin, int64_t end) {
        ConvolveRows<T>(xp, wp, yp, begin, end, out_spatial, in_spatial,
                        windows, kernel_sizes, reversal, in_features, group_in,
                        out_features, out_per_feature_group,
                        out_per_batch_group, out_batch);
      });
    });
  }
  absl::StatusOr<Literal> typed = Convert(std::move(y), result_type);
  if (!typed.ok()) return InstructionError(instr, typed.status().message());
  // [batch, spatial..., feature] -> the result's dimension order.
  const std::vector<int64_t> y_strides = RowMajorStrides(y_dims);
  std::vector<int64_t> src_strides(shape.rank());
  src_strides[dn.output_batch_dimension] = y_strides[0];
  for (int64_t d = 0; d < ns; ++d) {
    src_strides[dn.output_spatial_dimensions[d]] = y_strides[1 + d];
  }
  src_strides[dn.output_feature_dimension] = y_strides[ns + 1];
  Literal out(shape);
  CopyStrided(shape.dimensions(), typed->untyped_data(), 0, src_strides,
              out.untyped_data(), 0, RowMajorStrides(shape.dimensions()),
              ByteWidth(result_type));
  return out;
}

}  // namespace eval
}  // namespace hloc
