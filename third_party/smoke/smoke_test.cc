// Permanent sanity test: every external dependency compiles, links and runs.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/TargetParser/Triple.h"
#include "third_party/smoke/smoke.pb.h"

namespace {

absl::StatusOr<int> ParsePositive(int v) {
  if (v <= 0) return absl::InvalidArgumentError(absl::StrCat("not positive: ", v));
  return v;
}

TEST(SmokeTest, Abseil) {
  absl::flat_hash_map<std::string, int> m;
  m[absl::StrCat("a", 1)] = 2;
  EXPECT_EQ(m.at("a1"), 2);
  EXPECT_EQ(*ParsePositive(3), 3);
  absl::StatusOr<int> bad = ParsePositive(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SmokeTest, Llvm) {
  llvm::LLVMContext ctx;
  auto module = std::make_unique<llvm::Module>("smoke", ctx);
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  EXPECT_EQ(triple.getArch(), llvm::Triple::x86_64);
  module->setTargetTriple(triple.str());
  llvm::IRBuilder<> b(ctx);
  auto* fn_type = llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty()}, false);
  auto* fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage,
                                    "inc", module.get());
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  b.CreateRet(b.CreateAdd(fn->getArg(0), b.getInt32(1)));
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
}

TEST(SmokeTest, Protobuf) {
  hloc::smoke::SmokeShape shape;
  shape.add_dimensions(2);
  shape.add_dimensions(3);
  shape.set_element_type("f32");
  std::string bytes;
  ASSERT_TRUE(shape.SerializeToString(&bytes));
  hloc::smoke::SmokeShape parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.dimensions_size(), 2);
  EXPECT_EQ(parsed.element_type(), "f32");
}

TEST(SmokeTest, OpenMP) {
#ifndef _OPENMP
  FAIL() << "compiled without -fopenmp";
#endif
  std::vector<int64_t> v(1 << 16);
#pragma omp parallel for
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) v[i] = i;
  int64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) sum += v[i];
  const int64_t n = static_cast<int64_t>(v.size());
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

}  // namespace
