// The tools' last line of defence against a value too large for the host:
// what asks first (hlo/host_memory.h) reports it with the value's name;
// anything that still fails to allocate ends here as one clear line and
// exit status 2 (bad input), never an abort.
#ifndef TOOLS_OUT_OF_MEMORY_H_
#define TOOLS_OUT_OF_MEMORY_H_

#include <iostream>
#include <new>

namespace hloc {

// Runs `body` (a tool's main) and returns its exit status, or 2 after a
// message on stderr when it runs out of memory.
template <typename Body>
int ExitCleanlyOnOutOfMemory(const char* tool, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::cerr << tool
              << ": out of memory: a value of the module (or an input) is "
                 "larger than this host can allocate\n";
    return 2;
  }
}

}  // namespace hloc

#endif  // TOOLS_OUT_OF_MEMORY_H_
