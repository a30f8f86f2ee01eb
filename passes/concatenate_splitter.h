// Concatenates of many operands as a tree of narrower ones
// ("concatenate-splitter"; XLA's VariadicOpSplitter).
//
// A GPU kernel receives every buffer it reads as one pointer parameter,
// and a kernel's parameters may take at most 4352 bytes (544 pointers;
// ptxas refuses more: "uses too much parameter space"). Fusions keep to
// the cost model's max_operands, but a concatenate that fusion leaves
// alone reads all of its operands in one kernel: jnp.concatenate of 600
// slices, or jnp.stack of 1000 separately computed values, did not
// compile for cuda. Such a concatenate becomes a concatenate of
// concatenates of at most `max_operands` operands each, level by level
// until every one is that narrow; the values are the same (the operands
// keep their order).
#ifndef PASSES_CONCATENATE_SPLITTER_H_
#define PASSES_CONCATENATE_SPLITTER_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "passes/pass.h"

namespace hloc {

class ConcatenateSplitter : public HloPass {
 public:
  // XLA's limit: kernels of 128 operands (1 KB of pointers) stay well under
  // the 4352 bytes, with room for the output and the launch's own.
  static constexpr int64_t kGpuMaxOperands = 128;

  explicit ConcatenateSplitter(int64_t max_operands = kGpuMaxOperands)
      : max_operands_(max_operands < 2 ? 2 : max_operands) {}
  absl::string_view name() const override { return "concatenate-splitter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t max_operands_;
};

}  // namespace hloc

#endif  // PASSES_CONCATENATE_SPLITTER_H_
