// Unit tests of the HLO text tokenizer.
#include "hlo/text/lexer.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

using K = HloTokenKind;

// All tokens up to (not including) kEnd, as "kind:text" strings.
std::vector<std::string> Lex(absl::string_view text) {
  HloLexer lexer(text);
  std::vector<std::string> out;
  for (int i = 0; i < 1000; ++i) {
    HloToken t = lexer.Next();
    if (t.kind == K::kEnd) break;
    std::string kind;
    switch (t.kind) {
      case K::kWord:
        kind = "W";
        break;
      case K::kName:
        kind = "N";
        break;
      case K::kString:
        kind = "S";
        break;
      case K::kError:
        kind = std::string("E(") + t.error + ")";
        break;
      default:
        kind = "P";
        break;
    }
    out.push_back(kind + ":" + std::string(t.text));
  }
  return out;
}

using V = std::vector<std::string>;
using LC = std::pair<int64_t, int64_t>;

TEST(LexerTest, InstructionLine) {
  EXPECT_EQ(Lex("ROOT %add.1 = f32[2,3]{1,0} add(%a, b.2)"),
            (V{"W:ROOT", "N:%add.1", "P:=",  "W:f32", "P:[",   "W:2", "P:,",
               "W:3",    "P:]",      "P:{",  "W:1",   "P:,",   "W:0", "P:}",
               "W:add",  "P:(",      "N:%a", "P:,",   "W:b.2", "P:)"}));
}

TEST(LexerTest, DashesBelongToWordsExceptBeforeArrow) {
  EXPECT_EQ(Lex("get-tuple-element.1 b01f_01io->b01f -inf -1_-2x0_0"),
            (V{"W:get-tuple-element.1", "W:b01f_01io", "P:->", "W:b01f",
               "W:-inf", "W:-1_-2x0_0"}));
  EXPECT_EQ(Lex("(f32[]) -> f32[]"), (V{"P:(", "W:f32", "P:[", "P:]", "P:)",
                                        "P:->", "W:f32", "P:[", "P:]"}));
}

TEST(LexerTest, NumbersKeepTheirExponentSign) {
  EXPECT_EQ(Lex("1e+10 -2.5E-3 0x1F 7.85386146e-05"),
            (V{"W:1e+10", "W:-2.5E-3", "W:0x1F", "W:7.85386146e-05"}));
  // '+' outside a number's exponent is not part of a word.
  EXPECT_EQ(Lex("abe+1"), (V{"W:abe", "E(unexpected character):+", "W:1"}));
}

TEST(LexerTest, PunctuationOfLayoutsAndReplicaGroups) {
  EXPECT_EQ(
      Lex("{1,0:T(8,*)#(s32)E(16)} [2]<=[4] f32[<=8,?]"),
      (V{"P:{",   "W:1", "P:,",  "W:0", "P::",   "W:T",  "P:(", "W:8", "P:,",
         "P:*",   "P:)", "P:#",  "P:(", "W:s32", "P:)",  "W:E", "P:(", "W:16",
         "P:)",   "P:}", "P:[",  "W:2", "P:]",   "P:<=", "P:[", "W:4", "P:]",
         "W:f32", "P:[", "P:<=", "W:8", "P:,",   "P:?",  "P:]"}));
}

TEST(LexerTest, StringsKeepEscapes) {
  HloLexer lexer(R"(op_name="a\"b\\c" x)");
  lexer.Next();
  lexer.Next();
  HloToken s = lexer.Next();
  ASSERT_EQ(s.kind, K::kString);
  EXPECT_EQ(s.text, R"("a\"b\\c")");
  auto value = UnescapeStringToken(s);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, "a\"b\\c");
  EXPECT_EQ(lexer.Next().text, "x");
}

TEST(LexerTest, CommentsAreSkipped) {
  EXPECT_EQ(Lex("a // to end of line\nb /* block\n comment */ c/*x*/d"),
            (V{"W:a", "W:b", "W:c", "W:d"}));
}

TEST(LexerTest, Errors) {
  EXPECT_EQ(Lex("a \"unterminated"), (V{"W:a", "E(unterminated string):\""}));
  EXPECT_EQ(Lex("a /* never closed"), (V{"W:a", "E(unterminated comment):/*"}));
  EXPECT_EQ(Lex("a $ b"), (V{"W:a", "E(unexpected character):$", "W:b"}));
  EXPECT_EQ(Lex("% x"), (V{"E(expected a name after '%'):%", "W:x"}));
  // A lone backslash at the very end cannot run past the input.
  EXPECT_EQ(Lex("\"\\"), (V{"E(unterminated string):\""}));
}

TEST(LexerTest, EndRepeatsAndOffsetsAreExact) {
  HloLexer lexer("  ab\n cd");
  HloToken a = lexer.Next();
  EXPECT_EQ(a.offset, 2);
  EXPECT_EQ(a.end(), 4);
  HloToken c = lexer.Next();
  EXPECT_EQ(c.offset, 6);
  EXPECT_EQ(lexer.Next().kind, K::kEnd);
  EXPECT_EQ(lexer.Next().kind, K::kEnd);
  EXPECT_EQ(lexer.LineColumn(2), LC(1, 3));
  EXPECT_EQ(lexer.LineColumn(6), LC(2, 2));
}

TEST(LexerTest, EmptyInput) {
  HloLexer lexer("");
  EXPECT_EQ(lexer.Next().kind, K::kEnd);
  EXPECT_EQ(lexer.LineColumn(0), LC(1, 1));
}

}  // namespace
}  // namespace hloc
