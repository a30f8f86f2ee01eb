// The error texts every vendor library's loader (CUDA driver, cuBLASLt,
// cuDNN, HIP) and library calls (cuBLASLt, cuDNN, cuFFT, cuSOLVER) report
// through these helpers, checked with libraries every machine has.
#include "runtime/dlopen_symbols.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace hloc {
namespace {

bool Contains(const absl::Status& status, const std::string& text) {
  return status.message().find(text) != absl::string_view::npos;
}

TEST(DlopenSymbolsTest, LibraryNamesPreferTheEnvironment) {
  const char* env = "HLOC_DLOPEN_SYMBOLS_TEST_LIBRARY";
  unsetenv(env);
  EXPECT_EQ(LibraryNames(env, "liba.so.2,liba.so.1"), "liba.so.2,liba.so.1");
  setenv(env, "", 1);
  EXPECT_EQ(LibraryNames(env, "liba.so.2"), "liba.so.2");
  setenv(env, "/opt/liba.so", 1);
  EXPECT_EQ(LibraryNames(env, "liba.so.2"), "/opt/liba.so");
  unsetenv(env);
}

TEST(DlopenSymbolsTest, OpensTheFirstThatLoads) {
  absl::StatusOr<OpenedLibrary> opened =
      OpenFirstLibrary("libhloc-no-such-library.so,libc.so.6", "libc");
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->name, "libc.so.6");
  EXPECT_NE(opened->handle, nullptr);
  dlclose(opened->handle);
}

TEST(DlopenSymbolsTest, NoneLoadsSaysWhatWhichAndHint) {
  absl::StatusOr<OpenedLibrary> opened = OpenFirstLibrary(
      "libhloc-none-1.so,libhloc-none-2.so", "cuBLASLt", "is it installed?");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(
      opened.status().message().rfind(
          "no cuBLASLt: cannot load libhloc-none-1.so,libhloc-none-2.so", 0),
      0u)
      << opened.status();
  EXPECT_TRUE(Contains(opened.status(), "libhloc-none-2.so: cannot open"))
      << opened.status();
  EXPECT_TRUE(Contains(opened.status(), "); is it installed?"))
      << opened.status();
}

TEST(DlopenSymbolsTest, BinderResolvesAlternativesAndReportsAllMissing) {
  absl::StatusOr<OpenedLibrary> libc = OpenFirstLibrary("libc.so.6", "libc");
  ASSERT_TRUE(libc.ok()) << libc.status();
  SymbolBinder binder(libc->handle);
  size_t (*strlen_function)(const char*) = nullptr;
  binder.Bind(&strlen_function, {"hloc_no_strlen", "strlen"});
  EXPECT_TRUE(binder.Check("libc.so.6", "anything").ok());
  ASSERT_NE(strlen_function, nullptr);
  EXPECT_EQ(strlen_function("four"), 4u);

  void (*missing)() = nullptr;
  binder.Bind(&missing, {"hloc_missing_a", "hloc_missing_a_v2"});
  binder.Bind(&missing, {"hloc_missing_b"});
  absl::Status status = binder.Check("libc.so.6", "a newer libc");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(),
            "libc.so.6 lacks hloc_missing_a, hloc_missing_b (a newer libc)");
  dlclose(libc->handle);
}

TEST(DlopenSymbolsTest, LibraryCallErrorNamesLibraryFunctionStatusAndStep) {
  absl::Status named = LibraryCallError("cuBLASLt", "cublasLtMatmul", 15,
                                        "CUBLAS_STATUS_NOT_SUPPORTED", "dot.1");
  EXPECT_EQ(named.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(named.message(),
            "cuBLASLt cublasLtMatmul failed: CUBLAS_STATUS_NOT_SUPPORTED (15) "
            "in dot.1");
  absl::Status unnamed =
      LibraryCallError("cuDNN", "cudnnCreate", 4, nullptr, "creating a handle");
  EXPECT_EQ(unnamed.message(),
            "cuDNN cudnnCreate failed: status 4 in creating a handle");
}

}  // namespace
}  // namespace hloc
