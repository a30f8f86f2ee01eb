// The LoopMapping seam on its own: one fused computation, emitted through
// FusedIrEmitter + LoopEmitter with two different mappings -- the serial
// loop nest, and a GPU-style mapping that visits one linear index per
// "thread" and splits it with IrIndex::FromLinear -- JIT-compiled for the
// host and checked against the evaluator. Operands use different layouts,
// so both the linear fast path and the layout-strided path are exercised.
#include "backends/common/loop_emitter.h"

#include <cstring>
#include <memory>
#include <vector>

#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/math_library.h"
#include "backends/cpu/jit.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// What a GPU loop kernel does per thread, minus the thread ids: every
// linear index of the shape in turn, each split into its multi-dimensional
// index (one div/rem per dimension).
class LinearLoopMapping : public LoopMapping {
 public:
  absl::Status EmitLoopNest(const Shape& shape, const BodyEmitter& body,
                            llvm::IRBuilderBase* b) override {
    return EmitForLoop(
        "linear", b->getInt64(0), b->getInt64(shape.ElementCount()),
        b->getInt64(1),
        [&](llvm::Value* linear) {
          return body(IrIndex::FromLinear(linear, shape, b));
        },
        b);
  }
};

constexpr char kModule[] = R"(
HloModule seam
fused {
  x = f32[6,5]{0,1} parameter(0)
  y = f32[6,5] parameter(1)
  v = f32[5] parameter(2)
  vb = f32[6,5] broadcast(v), dimensions={1}
  a = f32[6,5] add(x, y)
  m = f32[6,5] multiply(a, vb)
  t = f32[5,6] transpose(m), dimensions={1,0}
  ROOT r = f32[5,6] exponential(t)
}
ENTRY main {
  x = f32[6,5]{0,1} parameter(0)
  y = f32[6,5] parameter(1)
  v = f32[5] parameter(2)
  ROOT f = f32[5,6] fusion(x, y, v), kind=kLoop, calls=fused
}
)";

std::vector<float> RunWithMapping(const HloModule& module, LoopMapping& mapping,
                                  const std::vector<Literal>& args) {
  const HloInstruction* fusion = module.entry_computation()->root_instruction();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>("seam", *context);
  llvm::Type* ptr = llvm::PointerType::get(*context, 0);
  // void kernel(ptr x, ptr y, ptr v, ptr out)
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(*context),
                              {ptr, ptr, ptr, ptr}, false),
      llvm::GlobalValue::ExternalLinkage, "kernel", llvm_module.get());
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(*context, "entry", fn));
  HostMathLibrary math;
  ElementalEmitter elemental(llvm_module.get(), &b, &math);
  FusedIrEmitter fused(&elemental);
  std::vector<IrArray> inputs;
  for (int i = 0; i < 3; ++i) {
    inputs.emplace_back(fn->getArg(i), fusion->operand(i)->shape());
  }
  for (int i = 0; i < 3; ++i) {
    IrArray array = inputs[i];
    fused.BindParameter(i, [array, &b](const IrIndex& index) {
      return array.EmitRead(index, &b);
    });
  }
  auto root = fused.GetGenerator(fusion->fused_expression_root());
  EXPECT_TRUE(root.ok()) << root.status();
  IrArray out(fn->getArg(3), fusion->shape());
  LoopEmitter emitter({*root}, {out}, &b);
  absl::Status status = emitter.EmitLoop(mapping);
  EXPECT_TRUE(status.ok()) << status;
  b.CreateRetVoid();

  auto jit = JitModule::Create(std::move(context), std::move(llvm_module), {});
  EXPECT_TRUE(jit.ok()) << jit.status();
  if (!jit.ok()) return {};
  auto address = (*jit)->Lookup("kernel");
  EXPECT_TRUE(address.ok()) << address.status();
  // x is column-major in memory: lay the row-major literal out that way.
  std::vector<float> x(30);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 5; ++j) x[j * 6 + i] = args[0].data<float>()[i * 5 + j];
  }
  std::vector<float> result(30);
  auto kernel =
      reinterpret_cast<void (*)(const void*, const void*, const void*, void*)>(
          *address);
  kernel(x.data(), args[1].untyped_data(), args[2].untyped_data(),
         result.data());
  return result;
}

TEST(LoopMappingTest, SerialAndLinearMappingsComputeTheSameFusion) {
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(F32, {6, 5})));
  args.push_back(Literal(Shape::Array(F32, {6, 5})));
  args.push_back(Literal(Shape::Array(F32, {5})));
  for (Literal& a : args) {
    for (int64_t i = 0; i < a.element_count(); ++i) {
      a.SetFromDouble(i, 0.1 * static_cast<double>((i * 7) % 11) - 0.4);
    }
  }
  auto expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  SerialLoopMapping serial;
  LinearLoopMapping linear;
  for (LoopMapping* mapping : std::vector<LoopMapping*>{&serial, &linear}) {
    std::vector<float> actual = RunWithMapping(**module, *mapping, args);
    ASSERT_EQ(actual.size(), 30u);
    for (int i = 0; i < 30; ++i) {
      EXPECT_NEAR(actual[i], expected->data<float>()[i],
                  1e-5 * std::abs(expected->data<float>()[i]))
          << "element " << i;
    }
  }
}

}  // namespace
}  // namespace hloc
