#include "core/json_text.h"

#include <gtest/gtest.h>

#include <string>

namespace redrive {
namespace {

using namespace std::string_literals;

TEST(JsonQuoteTest, PlainText) {
  EXPECT_EQ(JsonQuote(""), R"("")");
  EXPECT_EQ(JsonQuote("hello world"), R"("hello world")");
  EXPECT_EQ(JsonQuote("a/b"), R"("a/b")");  // '/' needs no escape
}

TEST(JsonQuoteTest, QuotesAndBackslashes) {
  EXPECT_EQ(JsonQuote(R"(say "hi")"), R"("say \"hi\"")");
  EXPECT_EQ(JsonQuote(R"(C:\tmp\)"), R"("C:\\tmp\\")");
  EXPECT_EQ(JsonQuote(R"(\")"), R"("\\\"")");
}

TEST(JsonQuoteTest, ControlCharacters) {
  EXPECT_EQ(JsonQuote("a\nb\rc\td"), R"("a\nb\rc\td")");
  EXPECT_EQ(JsonQuote("\x01"), R"("\u0001")");
  EXPECT_EQ(JsonQuote("\x08\x0c"), R"("\u0008\u000c")");
  EXPECT_EQ(JsonQuote("\x1f"), R"("\u001f")");
  EXPECT_EQ(JsonQuote("a\0b"s), R"("a\u0000b")");
  EXPECT_EQ(JsonQuote("\x20"), R"(" ")");    // first non-control
  EXPECT_EQ(JsonQuote("\x7f"), "\"\x7f\"");  // DEL is legal in JSON strings
}

TEST(JsonQuoteTest, EveryControlCharacterIsEscaped) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string q = JsonQuote(std::string(1, static_cast<char>(c)));
    for (char ch : q) EXPECT_GE(static_cast<unsigned char>(ch), 0x20) << "char " << c;
  }
}

TEST(JsonQuoteTest, Utf8PassesThrough) {
  EXPECT_EQ(JsonQuote("caf\xC3\xA9 \xF0\x9F\x98\x80"), "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
}

TEST(JsonObjectTextTest, BuildsObjectsInInsertionOrder) {
  EXPECT_EQ(JsonObjectText().Build(), "{}");
  EXPECT_EQ(JsonObjectText().Str("a", "x").Build(), R"({"a":"x"})");
  EXPECT_EQ(JsonObjectText()
                .Str("error", "bad \"x\"\n")
                .Int("retry_count", 3)
                .Int("neg", -42)
                .Raw("flag", "true")
                .Raw("obj", R"({"k":[1,2]})")
                .Build(),
            R"({"error":"bad \"x\"\n","retry_count":3,"neg":-42,"flag":true,"obj":{"k":[1,2]}})");
}

TEST(JsonObjectTextTest, KeysAreEscapedToo) {
  EXPECT_EQ(JsonObjectText().Int("we\"ird\tkey", 1).Build(), R"({"we\"ird\tkey":1})");
}

TEST(JsonObjectTextTest, IntegerExtremes) {
  EXPECT_EQ(JsonObjectText().Int("min", LLONG_MIN).Int("max", LLONG_MAX).Build(),
            R"({"min":-9223372036854775808,"max":9223372036854775807})");
}

}  // namespace
}  // namespace redrive
