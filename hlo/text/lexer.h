// Tokenizer for XLA's HLO text format.
//
// The lexer is deliberately context-free and coarse: everything made of
// [A-Za-z0-9_.-] is one kWord ("f32", "get-tuple-element", "add.1", "-1.5e+10",
// "0_1x0_1", "b01f_01io", "kLoop", "-inf"), and the parser interprets words in
// context (as a number, an opcode, a window spec, ...). That keeps the lexer
// free of the grammar's many special spellings. Two refinements keep words
// unambiguous: a '-' followed by '>' ends a word (so "b01f_01io->b01f" is
// word, arrow, word), and a '+' continues a word only as a number's exponent
// sign ("1e+10").
//
// Whitespace, `// line` and `/* block */` comments separate tokens. Tokens
// carry only their byte offset; line and column are computed on demand
// (LineColumn), which only error paths need.
#ifndef HLO_TEXT_LEXER_H_
#define HLO_TEXT_LEXER_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

enum class HloTokenKind {
  kEnd,       // end of input
  kError,     // bad input; HloToken::error says what
  kWord,      // [A-Za-z0-9_.-]+ (see above)
  kName,      // %name; text includes the '%'
  kString,    // "..." with C escapes; text includes the quotes
  kLBrace,    // {
  kRBrace,    // }
  kLParen,    // (
  kRParen,    // )
  kLSquare,   // [
  kRSquare,   // ]
  kComma,     // ,
  kEqual,     // =
  kColon,     // :
  kArrow,     // ->
  kLeq,       // <=
  kStar,      // *
  kHash,      // #
  kQuestion,  // ?
};

struct HloToken {
  HloTokenKind kind = HloTokenKind::kEnd;
  // The token's exact source text (empty for kEnd).
  absl::string_view text;
  // Byte offset of the token's first character in the source.
  int64_t offset = 0;
  // For kError: what is wrong ("unterminated string", ...).
  const char* error = nullptr;

  int64_t end() const { return offset + static_cast<int64_t>(text.size()); }
  // For kName the name without '%', otherwise the text.
  absl::string_view name() const {
    return kind == HloTokenKind::kName ? text.substr(1) : text;
  }
};

class HloLexer {
 public:
  explicit HloLexer(absl::string_view source) : source_(source) {}

  // The next token; kEnd forever once the input is exhausted. After a kError
  // token the lexer resumes after the offending text, but parsers stop at the
  // first error anyway.
  HloToken Next();

  absl::string_view source() const { return source_; }

  // 1-based line and column (in bytes) of a byte offset. Linear in the
  // offset: meant for error messages.
  std::pair<int64_t, int64_t> LineColumn(int64_t offset) const;

 private:
  // Skips whitespace and comments. Returns false, with `*error_offset` set,
  // at an unterminated block comment.
  bool SkipTrivia(int64_t* error_offset);

  absl::string_view source_;
  int64_t pos_ = 0;
};

// Human-readable token kind ("'{'", "a string", "end of input") for messages.
absl::string_view HloTokenKindName(HloTokenKind kind);

// The value of a kString token: quotes removed, C escapes resolved.
absl::StatusOr<std::string> UnescapeStringToken(const HloToken& token);

// True for characters that may appear in a word or %name.
inline bool IsHloWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

}  // namespace hloc

#endif  // HLO_TEXT_LEXER_H_
