// Loading a vendor library at run time and resolving its functions: the
// CUDA driver, cuBLASLt, cuDNN, NCCL (cuda) and the HIP runtime (rocm) are
// all opened with dlopen, so the project builds and runs its non-GPU tests
// without any of them, and one binary runs wherever they are found.
#ifndef RUNTIME_DLOPEN_SYMBOLS_H_
#define RUNTIME_DLOPEN_SYMBOLS_H_

#include <dlfcn.h>

#include <initializer_list>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

// Points `*function` at the first of `symbols` the library exports.
template <typename Function>
bool ResolveSymbol(void* handle, std::initializer_list<const char*> symbols,
                   Function* function) {
  for (const char* symbol : symbols) {
    if (void* address = dlsym(handle, symbol)) {
      *function = reinterpret_cast<Function>(address);
      return true;
    }
  }
  return false;
}

// The library names to try: the environment variable `env` when set (a
// comma-separated list, as `defaults` is), else `defaults`.
std::string LibraryNames(const char* env, absl::string_view defaults);

struct OpenedLibrary {
  void* handle = nullptr;
  // The name that loaded.
  std::string name;
};

// dlopens the first of the comma-separated `names` that loads. The error
// (Unavailable) says "no <what>: cannot load <names> (<each dlerror>)",
// then "; <hint>" when a hint (what to install) is given.
absl::StatusOr<OpenedLibrary> OpenFirstLibrary(absl::string_view names,
                                               absl::string_view what,
                                               absl::string_view hint = "");

// A vendor library's function table (cuBLASLt, cuDNN, cuFFT, cuSOLVER)
// derives from this: the handle it was loaded with, closed with it, and the
// name that loaded.
struct LoadedLibrary {
  LoadedLibrary() = default;
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;
  ~LoadedLibrary() {
    if (handle != nullptr) dlclose(handle);
  }
  void* handle = nullptr;
  std::string name;
};

// OpenFirstLibrary into a new `Library` (a LoadedLibrary) whose functions
// the caller then binds with a SymbolBinder on its handle.
template <typename Library>
absl::StatusOr<std::unique_ptr<Library>> OpenLibraryTable(
    absl::string_view names, absl::string_view what) {
  absl::StatusOr<OpenedLibrary> opened = OpenFirstLibrary(names, what);
  if (!opened.ok()) return opened.status();
  auto library = std::make_unique<Library>();
  library->handle = opened->handle;
  library->name = opened->name;
  return library;
}

// The error of a call of `library`'s (cuBLASLt, cuDNN, cuFFT, cuSOLVER)
// `function` that returned `code`, not success: Internal "<library>
// <function> failed: <status_name> (<code>) in <what>", with "status
// <code>" in place of the name where `status_name` is null.
absl::Status LibraryCallError(absl::string_view library,
                              absl::string_view function, int code,
                              const char* status_name, absl::string_view what);

// Calls `fn` of `library`, a function table whose Check(status, function,
// what) turns the status the call returns into an absl::Status (through
// LibraryCallError).
#define HLOC_LIBRARY_CALL(library, what, fn, ...) \
  (library).Check((library).fn(__VA_ARGS__), #fn, (what))

// Resolves a library's functions one by one and reports every missing one
// at once.
class SymbolBinder {
 public:
  explicit SymbolBinder(void* handle) : handle_(handle) {}

  // `*function` is the first of `symbols` found (null when none is).
  template <typename Function>
  void Bind(Function* function, std::initializer_list<const char*> symbols) {
    *function = nullptr;
    if (!ResolveSymbol(handle_, symbols, function)) {
      missing_ += (missing_.empty() ? "" : ", ");
      missing_ += *symbols.begin();
    }
  }

  // Unavailable "<library> lacks <symbols> (<requirement>)" when any is
  // missing.
  absl::Status Check(absl::string_view library,
                     absl::string_view requirement) const;

 private:
  void* handle_;
  std::string missing_;
};

}  // namespace hloc

#endif  // RUNTIME_DLOPEN_SYMBOLS_H_
