#include "hlo/text/lexer.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool HloLexer::SkipTrivia(int64_t* error_offset) {
  const int64_t n = static_cast<int64_t>(source_.size());
  while (pos_ < n) {
    char c = source_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < n && source_[pos_ + 1] == '/') {
      pos_ += 2;
      while (pos_ < n && source_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < n && source_[pos_ + 1] == '*') {
      const int64_t start = pos_;
      pos_ += 2;
      while (pos_ + 1 < n &&
             !(source_[pos_] == '*' && source_[pos_ + 1] == '/')) {
        ++pos_;
      }
      if (pos_ + 1 >= n) {
        pos_ = n;
        *error_offset = start;
        return false;
      }
      pos_ += 2;
    } else {
      return true;
    }
  }
  return true;
}

HloToken HloLexer::Next() {
  HloToken token;
  int64_t error_offset = 0;
  if (!SkipTrivia(&error_offset)) {
    token.kind = HloTokenKind::kError;
    token.offset = error_offset;
    token.text = source_.substr(error_offset, 2);
    token.error = "unterminated comment";
    return token;
  }
  const int64_t n = static_cast<int64_t>(source_.size());
  token.offset = pos_;
  if (pos_ >= n) {
    token.kind = HloTokenKind::kEnd;
    token.text = source_.substr(n, 0);
    return token;
  }
  const int64_t start = pos_;
  const char c = source_[pos_];
  auto single = [&](HloTokenKind kind, int64_t length) {
    token.kind = kind;
    token.text = source_.substr(start, length);
    pos_ = start + length;
    return token;
  };
  switch (c) {
    case '{':
      return single(HloTokenKind::kLBrace, 1);
    case '}':
      return single(HloTokenKind::kRBrace, 1);
    case '(':
      return single(HloTokenKind::kLParen, 1);
    case ')':
      return single(HloTokenKind::kRParen, 1);
    case '[':
      return single(HloTokenKind::kLSquare, 1);
    case ']':
      return single(HloTokenKind::kRSquare, 1);
    case ',':
      return single(HloTokenKind::kComma, 1);
    case '=':
      return single(HloTokenKind::kEqual, 1);
    case ':':
      return single(HloTokenKind::kColon, 1);
    case '*':
      return single(HloTokenKind::kStar, 1);
    case '#':
      return single(HloTokenKind::kHash, 1);
    case '?':
      return single(HloTokenKind::kQuestion, 1);
    default:
      break;
  }
  if (c == '-' && pos_ + 1 < n && source_[pos_ + 1] == '>') {
    return single(HloTokenKind::kArrow, 2);
  }
  if (c == '<' && pos_ + 1 < n && source_[pos_ + 1] == '=') {
    return single(HloTokenKind::kLeq, 2);
  }
  // "..." strings, and XLA's single-quoted mesh axis names ('axis_0').
  if (c == '"' || c == '\'') {
    ++pos_;
    while (pos_ < n && source_[pos_] != c) {
      // An escape consumes the next character, whatever it is.
      pos_ += source_[pos_] == '\\' ? 2 : 1;
    }
    if (pos_ >= n) {
      pos_ = n;
      token.kind = HloTokenKind::kError;
      token.text = source_.substr(start, 1);
      token.error = "unterminated string";
      return token;
    }
    ++pos_;
    token.kind = HloTokenKind::kString;
    token.text = source_.substr(start, pos_ - start);
    return token;
  }
  // A word (or %name): a run of word characters. '-' is a word character
  // except before '>', and '+' only as the sign of a number's exponent.
  const bool percent = c == '%';
  int64_t word_start = percent ? pos_ + 1 : pos_;
  bool starts_word = word_start < n && IsHloWordChar(source_[word_start]);
  if (starts_word && source_[word_start] == '-') {
    starts_word = word_start + 1 < n &&
                  IsHloWordChar(source_[word_start + 1]) &&
                  source_[word_start + 1] != '-';
  }
  if (!starts_word) {
    token.kind = HloTokenKind::kError;
    token.text = source_.substr(start, 1);
    token.error =
        percent ? "expected a name after '%'" : "unexpected character";
    pos_ = start + 1;
    return token;
  }
  const char first = source_[word_start];
  const bool numeric =
      !percent &&
      (IsDigit(first) || first == '.' ||
       (first == '-' && word_start + 1 < n &&
        (IsDigit(source_[word_start + 1]) || source_[word_start + 1] == '.')));
  pos_ = word_start;
  while (pos_ < n) {
    const char d = source_[pos_];
    if (d == '-') {
      if (pos_ + 1 < n && source_[pos_ + 1] == '>') break;
      ++pos_;
    } else if (IsHloWordChar(d)) {
      ++pos_;
    } else if (d == '+' && numeric && pos_ > word_start &&
               (source_[pos_ - 1] == 'e' || source_[pos_ - 1] == 'E')) {
      ++pos_;
    } else {
      break;
    }
  }
  token.kind = percent ? HloTokenKind::kName : HloTokenKind::kWord;
  token.text = source_.substr(start, pos_ - start);
  return token;
}

std::pair<int64_t, int64_t> HloLexer::LineColumn(int64_t offset) const {
  int64_t line = 1;
  int64_t line_start = 0;
  const int64_t end = std::min<int64_t>(offset, source_.size());
  for (int64_t i = 0; i < end; ++i) {
    if (source_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, offset - line_start + 1};
}

absl::string_view HloTokenKindName(HloTokenKind kind) {
  switch (kind) {
    case HloTokenKind::kEnd:
      return "end of input";
    case HloTokenKind::kError:
      return "invalid input";
    case HloTokenKind::kWord:
      return "a word";
    case HloTokenKind::kName:
      return "a %name";
    case HloTokenKind::kString:
      return "a string";
    case HloTokenKind::kLBrace:
      return "'{'";
    case HloTokenKind::kRBrace:
      return "'}'";
    case HloTokenKind::kLParen:
      return "'('";
    case HloTokenKind::kRParen:
      return "')'";
    case HloTokenKind::kLSquare:
      return "'['";
    case HloTokenKind::kRSquare:
      return "']'";
    case HloTokenKind::kComma:
      return "','";
    case HloTokenKind::kEqual:
      return "'='";
    case HloTokenKind::kColon:
      return "':'";
    case HloTokenKind::kArrow:
      return "'->'";
    case HloTokenKind::kLeq:
      return "'<='";
    case HloTokenKind::kStar:
      return "'*'";
    case HloTokenKind::kHash:
      return "'#'";
    case HloTokenKind::kQuestion:
      return "'?'";
  }
  return "?";
}

absl::StatusOr<std::string> UnescapeStringToken(const HloToken& token) {
  if (token.kind != HloTokenKind::kString || token.text.size() < 2) {
    return absl::InvalidArgumentError("not a string token");
  }
  std::string value;
  std::string error;
  if (!absl::CUnescape(token.text.substr(1, token.text.size() - 2), &value,
                       &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid escape in string: ", error));
  }
  return value;
}

}  // namespace hloc
