// The source text of aot_main.c, the driver every ahead-of-time compiled
// module is linked with (compiled by the target's C compiler at run time).
#ifndef RUNTIME_AOT_AOT_MAIN_SOURCE_H_
#define RUNTIME_AOT_AOT_MAIN_SOURCE_H_

namespace hloc {

inline constexpr char kAotMainSource[] =
#include "runtime/aot/aot_main_source.inc"
    ;

}  // namespace hloc

#endif  // RUNTIME_AOT_AOT_MAIN_SOURCE_H_
