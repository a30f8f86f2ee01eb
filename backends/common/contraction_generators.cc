// Element generators of the contractions: dot and convolution, one output
// element at a time (a loop over the contracted elements, multiply-add in
// the accumulation type). The GPU uses them for direct convolutions and
// for the dots its tiled dot kernel does not take (backends/gpu/
// tiled_dot_emitter.cc: a fusion with several dots, a dot read elsewhere
// than at the output position); the CPU has its own tiled emitters for
// both and never reaches these.
//
// Accumulation follows XLA: f16 and bf16 accumulate in f32 and round once
// at the end; other types accumulate in the output type (integers wrap;
// complex products are the textbook ones, as XLA's elemental multiply; a
// pred result is the OR of the ANDs, XLA's and the evaluator's sum and
// product of booleans).
#include <functional>
#include <vector>

#include "backends/common/complex_emitter.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/kernel_analysis.h"
#include "backends/common/loop_emitter.h"
#include "hlo/instruction.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

namespace hloc {
namespace {

llvm::Constant* Index(const IrIndex& index, int64_t value) {
  return llvm::ConstantInt::get(index.index_type(), value, /*IsSigned=*/true);
}

PrimitiveType AccumulationType(PrimitiveType out) {
  return out == F16 || out == BF16 ? F32 : out;
}

// Loops over [0, bounds[i]) for every i, most significant first, with
// ivs[i] the induction variables, around `body`.
absl::Status EmitLoops(const std::vector<int64_t>& bounds,
                       std::vector<llvm::Value*>& ivs,
                       const std::function<absl::Status()>& body,
                       llvm::Type* index_type, llvm::IRBuilderBase* b,
                       size_t level = 0) {
  if (level == bounds.size()) return body();
  return EmitForLoop(
      "contract", llvm::ConstantInt::get(index_type, 0),
      llvm::ConstantInt::get(index_type, bounds[level]),
      llvm::ConstantInt::get(index_type, 1),
      [&](llvm::Value* iv) {
        ivs[level] = iv;
        return EmitLoops(bounds, ivs, body, index_type, b, level + 1);
      },
      b);
}

}  // namespace

absl::StatusOr<llvm::Value*> ElementalEmitter::EmitSumOfProducts(
    const HloInstruction* hlo, const std::vector<int64_t>& bounds,
    const IrIndex& index,
    const std::function<absl::StatusOr<ContractionTerm>(
        const std::vector<llvm::Value*>&)>& term) {
  llvm::IRBuilderBase* b = b_;
  const PrimitiveType out = hlo->shape().element_type();
  const PrimitiveType acc_type = AccumulationType(out);
  const PrimitiveType lhs_type = hlo->operand(0)->shape().element_type();
  const PrimitiveType rhs_type = hlo->operand(1)->shape().element_type();
  HLOC_ASSIGN_OR_RETURN(llvm::Type * acc_llvm_type,
                        RegisterType(acc_type, b->getContext()));
  llvm::Value* acc = EmitAllocaAtEntry(acc_llvm_type, "contract.acc", b);
  b->CreateStore(llvm::Constant::getNullValue(acc_llvm_type), acc);
  const bool is_float = IsFloatingPointType(acc_type);
  const bool is_complex = IsComplexType(acc_type);
  ComplexEmitter complex(module_, b_, math_);
  std::vector<llvm::Value*> ivs(bounds.size());
  HLOC_RETURN_IF_ERROR(EmitLoops(
      bounds, ivs,
      [&]() -> absl::Status {
        HLOC_ASSIGN_OR_RETURN(ContractionTerm t, term(ivs));
        auto accumulate = [&]() -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * l, t.lhs());
          HLOC_ASSIGN_OR_RETURN(llvm::Value * r, t.rhs());
          HLOC_ASSIGN_OR_RETURN(l, EmitConvert(l, lhs_type, acc_type));
          HLOC_ASSIGN_OR_RETURN(r, EmitConvert(r, rhs_type, acc_type));
          llvm::Value* sum = b->CreateLoad(acc_llvm_type, acc);
          if (acc_type == PRED) {
            sum = b->CreateOr(sum, b->CreateAnd(l, r));
          } else if (is_complex) {
            sum = complex.Add(sum, complex.Multiply(l, r));
          } else {
            sum = is_float ? b->CreateFAdd(sum, b->CreateFMul(l, r))
                           : b->CreateAdd(sum, b->CreateMul(l, r));
          }
          b->CreateStore(sum, acc);
          return absl::OkStatus();
        };
        if (t.valid == nullptr) return accumulate();
        return EmitIfThenElse(t.valid, accumulate, nullptr, b);
      },
      index.index_type(), b));
  return EmitConvert(b->CreateLoad(acc_llvm_type, acc), acc_type, out);
}

absl::StatusOr<ElementGenerator> ElementalEmitter::MakeDotGenerator(
    const HloInstruction* hlo, std::vector<ElementGenerator> operands) {
  if (!hlo->attrs().dot_dimension_numbers) {
    return CodegenUnimplemented(*hlo, "dot without dimension numbers");
  }
  const DotDimensionNumbers dn = *hlo->attrs().dot_dimension_numbers;
  const Shape lhs = hlo->operand(0)->shape();
  const Shape rhs = hlo->operand(1)->shape();
  auto is_in = [](const std::vector<int64_t>& v, int64_t d) {
    for (int64_t x : v) {
      if (x == d) return true;
    }
    return false;
  };
  // Output dimensions: batch, lhs free, rhs free (XLA's order).
  std::vector<int64_t> lhs_free, rhs_free;
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!is_in(dn.lhs_batch_dimensions, d) &&
        !is_in(dn.lhs_contracting_dimensions, d)) {
      lhs_free.push_back(d);
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!is_in(dn.rhs_batch_dimensions, d) &&
        !is_in(dn.rhs_contracting_dimensions, d)) {
      rhs_free.push_back(d);
    }
  }
  std::vector<int64_t> bounds;
  for (int64_t d : dn.lhs_contracting_dimensions) {
    bounds.push_back(lhs.dimensions(d));
  }
  return [this, hlo, operands, dn, lhs, rhs, lhs_free, rhs_free,
          bounds](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    return EmitSumOfProducts(
        hlo, bounds, index,
        [&](const std::vector<llvm::Value*>& k)
            -> absl::StatusOr<ContractionTerm> {
          std::vector<llvm::Value*> l(lhs.rank()), r(rhs.rank());
          size_t out_dim = 0;
          for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
            l[dn.lhs_batch_dimensions[i]] = index[out_dim];
            r[dn.rhs_batch_dimensions[i]] = index[out_dim];
            ++out_dim;
          }
          for (int64_t d : lhs_free) l[d] = index[out_dim++];
          for (int64_t d : rhs_free) r[d] = index[out_dim++];
          for (size_t i = 0; i < k.size(); ++i) {
            l[dn.lhs_contracting_dimensions[i]] = k[i];
            r[dn.rhs_contracting_dimensions[i]] = k[i];
          }
          IrIndex li(l, index.index_type()), ri(r, index.index_type());
          return ContractionTerm{nullptr, [=]() { return operands[0](li); },
                                 [=]() { return operands[1](ri); }};
        });
  };
}

// XLA's convolution: output feature o of group g = o / (O / G) reads input
// features g * Cg + [0, Cg); with batch groups, o also picks the batch
// group. An input position is out_position * stride + window_position *
// rhs_dilation - padding_low in the lhs-dilated input; positions between
// dilated elements, and outside the input, contribute nothing.
absl::StatusOr<ElementGenerator> ElementalEmitter::MakeConvolutionGenerator(
    const HloInstruction* hlo, std::vector<ElementGenerator> operands) {
  const HloAttributes& attrs = hlo->attrs();
  if (!attrs.convolution_dimension_numbers) {
    return CodegenUnimplemented(*hlo, "convolution without dimension numbers");
  }
  const ConvolutionDimensionNumbers dn = *attrs.convolution_dimension_numbers;
  // XLA omits the empty window of a convolution without spatial
  // dimensions.
  const Window window = attrs.window.value_or(Window{});
  const Shape in = hlo->operand(0)->shape();
  const Shape kernel = hlo->operand(1)->shape();
  const Shape out = hlo->shape();
  const int64_t spatial =
      static_cast<int64_t>(dn.input_spatial_dimensions.size());
  const int64_t groups = attrs.feature_group_count;
  const int64_t batch_groups = attrs.batch_group_count;
  const int64_t group_in_features =
      kernel.dimensions(dn.kernel_input_feature_dimension);
  const int64_t out_features = out.dimensions(dn.output_feature_dimension);
  const int64_t out_batch = out.dimensions(dn.output_batch_dimension);
  if (groups < 1 || batch_groups < 1 || out_features % groups != 0 ||
      out_features % batch_groups != 0) {
    return CodegenUnimplemented(*hlo,
                                "inconsistent feature or batch group counts");
  }
  // Loop over the group's input features, then the window.
  std::vector<int64_t> bounds = {group_in_features};
  for (int64_t s = 0; s < spatial; ++s) {
    bounds.push_back(window.dimensions[s].size);
  }
  return [this, hlo, operands, dn, window, in, kernel, spatial, groups,
          batch_groups, group_in_features, out_features, out_batch,
          bounds](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    llvm::IRBuilderBase* b = b_;
    llvm::Value* o = index[dn.output_feature_dimension];
    llvm::Value* group = b->CreateUDiv(o, Index(index, out_features / groups));
    llvm::Value* batch = index[dn.output_batch_dimension];
    if (batch_groups > 1) {
      llvm::Value* batch_group =
          b->CreateUDiv(o, Index(index, out_features / batch_groups));
      batch = b->CreateAdd(batch,
                           b->CreateMul(batch_group, Index(index, out_batch)));
    }
    return EmitSumOfProducts(
        hlo, bounds, index,
        [&](const std::vector<llvm::Value*>& iv)
            -> absl::StatusOr<ContractionTerm> {
          std::vector<llvm::Value*> x(in.rank()), w(kernel.rank());
          x[dn.input_batch_dimension] = batch;
          x[dn.input_feature_dimension] = b->CreateAdd(
              b->CreateMul(group, Index(index, group_in_features)), iv[0]);
          w[dn.kernel_input_feature_dimension] = iv[0];
          w[dn.kernel_output_feature_dimension] = o;
          llvm::Value* valid = b->getTrue();
          for (int64_t s = 0; s < spatial; ++s) {
            const WindowDimension& wd = window.dimensions[s];
            llvm::Value* k = iv[s + 1];
            w[dn.kernel_spatial_dimensions[s]] =
                wd.window_reversal ? b->CreateSub(Index(index, wd.size - 1), k)
                                   : k;
            llvm::Value* pos = b->CreateSub(
                b->CreateAdd(
                    b->CreateMul(index[dn.output_spatial_dimensions[s]],
                                 Index(index, wd.stride)),
                    b->CreateMul(k, Index(index, wd.window_dilation))),
                Index(index, wd.padding_low));
            valid = b->CreateAnd(valid, b->CreateICmpSGE(pos, Index(index, 0)));
            if (wd.base_dilation > 1) {
              llvm::Value* bd = Index(index, wd.base_dilation);
              valid = b->CreateAnd(
                  valid,
                  b->CreateICmpEQ(b->CreateSRem(pos, bd), Index(index, 0)));
              pos = b->CreateSDiv(pos, bd);
            }
            const int64_t extent =
                in.dimensions(dn.input_spatial_dimensions[s]);
            valid = b->CreateAnd(valid,
                                 b->CreateICmpSLT(pos, Index(index, extent)));
            x[dn.input_spatial_dimensions[s]] = pos;
          }
          IrIndex xi(x, index.index_type()), wi(w, index.index_type());
          return ContractionTerm{valid, [=]() { return operands[0](xi); },
                                 [=]() { return operands[1](wi); }};
        });
  };
}

}  // namespace hloc
