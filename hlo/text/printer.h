// Printer for XLA's HLO text format; the inverse of hlo/text/parser.h.
//
// The output is XLA's (HloModule::ToString) layout: the header line, the
// debug-info tables, then the computations in stored (callee-first) order,
// each "%name (p: f32[]) -> f32[] {" with one instruction per line, and the
// entry marked ENTRY. Attributes are printed in XLA's order for each opcode,
// then called computations, then the ones kept verbatim (raw attributes),
// sharding, frontend_attributes, control-predecessors, metadata and
// backend_config.
//
// Printing is deterministic, and print(parse(print(m))) == print(m) byte for
// byte: every field the parser fills is printed whenever it differs from what
// its absence parses to. Constants print in full with the shortest decimal
// text that round-trips (XLA's default would elide large ones as "{...}").
// A scheduled module prints each computation in schedule order.
#ifndef HLO_TEXT_PRINTER_H_
#define HLO_TEXT_PRINTER_H_

#include <string>

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloc {

struct PrintOptions {
  // metadata={...} on instructions and the FileNames/FunctionNames/
  // FileLocations/StackFrames tables its stack_frame_id refers to.
  bool print_metadata = true;
  bool print_backend_config = true;
  // "%name" rather than "name", for instructions and computations alike.
  bool print_percent = true;
  // Operands as "f32[2]{0} %x" rather than "%x".
  bool print_operand_shape = false;
  // Computation signatures "%c (p: f32[]) -> f32[] {" rather than "%c {".
  bool print_program_shape = true;
};

// The whole module, ending in a blank line.
std::string PrintModule(const HloModule& module,
                        const PrintOptions& options = {});
// One computation: signature line, instructions, closing brace (no ENTRY
// prefix and no trailing newline).
std::string PrintComputation(const HloComputation& computation,
                             const PrintOptions& options = {});
// One instruction line without indentation or the ROOT marker.
std::string PrintInstruction(const HloInstruction& instruction,
                             const PrintOptions& options = {});

}  // namespace hloc

#endif  // HLO_TEXT_PRINTER_H_
