// What llvm-readobj says about an HSA code object: its ELF type, the
// AMDGPU metadata note (target, and per kernel its descriptor symbol,
// register and LDS use, work-group size bound, wavefront size) and its
// symbols. Tests use it to check code objects without an AMD GPU; it
// parses llvm-readobj's text, so no LLVM libraries are needed.
#ifndef BACKENDS_GPU_HSACO_READOBJ_H_
#define BACKENDS_GPU_HSACO_READOBJ_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hloc {

struct HsacoKernel {
  std::string name;
  // The kernel descriptor's symbol (name.kd).
  std::string symbol;
  // Every other integer field of the kernel's metadata (".vgpr_count",
  // ".sgpr_count", ".agpr_count", ".group_segment_fixed_size",
  // ".max_flat_workgroup_size", ".wavefront_size", ".vgpr_spill_count",
  // ...), by its key.
  std::map<std::string, int64_t> fields;
  int64_t Field(const std::string& key) const {
    auto it = fields.find(key);
    return it == fields.end() ? -1 : it->second;
  }
};

struct HsacoSymbol {
  std::string name;
  std::string type;     // "Function", "Object", "None", ...
  std::string section;  // ".text", ".rodata", "Undefined", ...
  int64_t size = 0;
};

struct HsacoInfo {
  std::string format;    // "elf64-amdgpu"
  std::string elf_type;  // "SharedObject"
  std::string target;    // "amdgcn-amd-amdhsa--gfx942"
  bool has_metadata_note = false;
  std::vector<HsacoKernel> kernels;
  std::vector<HsacoSymbol> symbols;          // .symtab
  std::vector<HsacoSymbol> dynamic_symbols;  // .dynsym
};

// $HLOC_LLVM_READOBJ, else llvm-readobj-19 or llvm-readobj on $PATH; ""
// if there is none.
std::string FindLlvmReadobj();

// Parses `llvm-readobj --file-headers --notes --symbols --dyn-syms`.
HsacoInfo ParseReadobjOutput(const std::string& text);

// Runs `readobj` on the code object's bytes and parses its output; an
// error with its messages if it rejects the file.
absl::StatusOr<HsacoInfo> ReadHsaco(const std::string& readobj,
                                    const std::string& code_object);

}  // namespace hloc

#endif  // BACKENDS_GPU_HSACO_READOBJ_H_
