// host-callbacks: the pipelines' policy for JAX's Python host callbacks
// (hlo/host_callbacks.h), which no hloc platform can run.
//
// By default the pass refuses a module that has any, naming each callback,
// its JAX construct and source line, and the option that drops it. With
// `drop` (PipelineOptions::drop_debug_callbacks, the tools'
// --drop-debug-callbacks) it removes every callback whose results the
// program never reads -- jax.debug.print, jax.debug.callback, io_callback
// without results -- and writes one notice line per dropped callback to
// `notices`. An ordered callback's token result becomes its token operand
// (or an after-all of its tokens), so the effect chain stays well formed.
// A callback whose results are read (pure_callback, io_callback with
// results) can never be dropped: the pass refuses the module, naming those,
// before it changes anything.
#ifndef PASSES_HOST_CALLBACKS_H_
#define PASSES_HOST_CALLBACKS_H_

#include <iostream>
#include <ostream>

#include "passes/pass.h"

namespace hloc {

class HostCallbacks : public HloPass {
 public:
  // `notices`: where "hloc: dropped Python host callback ..." lines go
  // (null: nowhere).
  explicit HostCallbacks(bool drop = false, std::ostream* notices = &std::cerr)
      : drop_(drop), notices_(notices) {}

  // "host-callbacks" refuses every callback; "drop-host-callbacks" drops
  // what it can (both in hlo-opt --passes).
  absl::string_view name() const override {
    return drop_ ? "drop-host-callbacks" : "host-callbacks";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool drop_;
  std::ostream* notices_;
};

}  // namespace hloc

#endif  // PASSES_HOST_CALLBACKS_H_
