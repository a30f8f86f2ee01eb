// Resolving a vendor library's functions after dlopen: the CUDA driver
// (cuda_driver.h) and the HIP runtime (hip_driver.h) are both loaded at run
// time, so the project builds and runs its non-GPU tests without either.
#ifndef RUNTIME_DLOPEN_SYMBOLS_H_
#define RUNTIME_DLOPEN_SYMBOLS_H_

#include <dlfcn.h>

#include <initializer_list>

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

}  // namespace hloc

#endif  // RUNTIME_DLOPEN_SYMBOLS_H_
