#include "runtime/kernel_symbols.h"

#include <cstdint>
#include <string>

#include "hlo/float16.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "runtime/denormals.h"
#include "runtime/while_limit.h"

// libgomp's entry points the kernels call (the program links libgomp
// through -fopenmp). GOMP_parallel goes through runtime/denormals.h, which
// gives the workers the caller's denormal mode.
extern "C" {
int omp_get_thread_num(void);
int omp_get_num_threads(void);
}

namespace hloc {
namespace {

// x86-64 passes and returns LLVM's `half` and `bfloat` in the low 16 bits of
// an SSE register, as it does a float: these take and return a float whose
// low 16 bits are the 16-bit value (the upper bits of an argument are
// undefined). g++ 12 has no _Float16 in C++, hence the punning.
float Bits16AsFloat(uint16_t bits) { return BitsToFloat(bits); }
uint16_t FloatAsBits16(float x) {
  return static_cast<uint16_t>(FloatBits(x) & 0xffffu);
}

float ExtendHfSf2(float h) { return HalfBitsToFloat(FloatAsBits16(h)); }
float TruncSfHf2(float x) { return Bits16AsFloat(FloatToHalfBits(x)); }
float TruncSfBf2(float x) { return Bits16AsFloat(FloatToBF16Bits(x)); }
// Via f32: that double rounding cannot change an f16/bf16 result (see
// hlo/float16.h).
float TruncDfHf2(double x) {
  return Bits16AsFloat(FloatToHalfBits(static_cast<float>(x)));
}
float TruncDfBf2(double x) {
  return Bits16AsFloat(FloatToBF16Bits(static_cast<float>(x)));
}
// The older names some targets use, with the 16-bit value in an integer
// register.
float GnuH2FIeee(uint16_t h) { return HalfBitsToFloat(h); }
uint16_t GnuF2HIeee(float x) { return FloatToHalfBits(x); }

}  // namespace

std::vector<std::pair<const char*, void*>> KernelRuntimeSymbols() {
  return {
      {"GOMP_parallel",
       reinterpret_cast<void*>(&ParallelInCallersDenormalMode)},
      {"omp_get_thread_num", reinterpret_cast<void*>(&omp_get_thread_num)},
      {"omp_get_num_threads", reinterpret_cast<void*>(&omp_get_num_threads)},
      {"__extendhfsf2", reinterpret_cast<void*>(&ExtendHfSf2)},
      {"__truncsfhf2", reinterpret_cast<void*>(&TruncSfHf2)},
      {"__truncsfbf2", reinterpret_cast<void*>(&TruncSfBf2)},
      {"__truncdfhf2", reinterpret_cast<void*>(&TruncDfHf2)},
      {"__truncdfbf2", reinterpret_cast<void*>(&TruncDfBf2)},
      {"__gnu_h2f_ieee", reinterpret_cast<void*>(&GnuH2FIeee)},
      {"__gnu_f2h_ieee", reinterpret_cast<void*>(&GnuF2HIeee)},
      {"hloc_while_iteration", reinterpret_cast<void*>(&hloc_while_iteration)},
  };
}

absl::Status DefineKernelRuntimeSymbols(llvm::orc::LLJIT& jit) {
  llvm::orc::JITDylib& dylib = jit.getMainJITDylib();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit.getDataLayout().getGlobalPrefix());
  if (!process) {
    return absl::InternalError(llvm::toString(process.takeError()));
  }
  dylib.addGenerator(std::move(*process));
  llvm::orc::SymbolMap symbols;
  for (const auto& [name, address] : KernelRuntimeSymbols()) {
    symbols[jit.mangleAndIntern(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  }
  if (llvm::Error e =
          dylib.define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
    return absl::InternalError(llvm::toString(std::move(e)));
  }
  return absl::OkStatus();
}

}  // namespace hloc
