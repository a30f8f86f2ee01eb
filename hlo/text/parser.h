// Parser for XLA's HLO text format (what XLA's HloModule::ToString prints and
// what JAX's as_hlo_text() returns).
//
// Grammar, informally:
//   module      ::= header? tables? computation+
//   header      ::= 'HloModule' name (',' key '=' value)*
//   tables      ::= FileNames / FunctionNames / FileLocations / StackFrames
//   computation ::= 'ENTRY'? name signature? '{' instruction+ '}'
//   signature   ::= '(' (name ':' shape),* ')' '->' shape
//   instruction ::= 'ROOT'? name '=' shape opcode '(' operands ')' (',' attr)*
//   operand     ::= shape? name            names may carry a '%' prefix
// Special operand lists: parameter(N), constant(<literal>).
//
// Every attribute XLA prints for an opcode lands in the instruction's typed
// HloAttributes; metadata, frontend_attributes, backend_config and sharding
// are kept to print back; an attribute this parser does not know is kept
// verbatim in raw_attributes (instruction or module). A known attribute on an
// opcode that does not take it, or a missing required one, is an error.
//
// Building is forgiving about order: an instruction may name operands defined
// later in its computation (instructions are then added in dependency order;
// the text's order is kept whenever it is already def-before-use), and a
// computation may call one defined later (the module is then re-sorted
// callee-first). Names are kept as written; an instruction name repeated in
// another computation gets a ".N" suffix, since instruction names are unique
// module-wide here. Unique ids are fresh. With is_scheduled=true every
// computation's sequence is its instruction order.
//
// Errors read "file:line:col: message", naming the offending token and what
// was expected. Untrusted input is safe: nesting depth is bounded, numbers
// are range-checked, shapes whose size overflows are rejected and a constant's
// storage is allocated only after its text supplied every element.
#ifndef HLO_TEXT_PARSER_H_
#define HLO_TEXT_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/module.h"
#include "hlo/shape.h"

namespace hloc {

// Parses a whole module. `filename` prefixes error messages.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view filename = "<input>");

// Parses one shape ("f32[2,3]{1,0}", "(s32[], token[])"); the whole text
// must be the shape. Array shapes written without a layout get the default
// (descending) one.
absl::StatusOr<Shape> ParseShape(absl::string_view text);

}  // namespace hloc

#endif  // HLO_TEXT_PARSER_H_
