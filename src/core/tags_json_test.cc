#include "core/tags_json.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(TagsJsonTest, RoundTripsAwkwardStrings) {
  Tags tags = {{"", "empty key"},
               {"quote\"back\\slash", "tab\tnl\ncr\r"},
               {"ctl", std::string("\x01\x1f", 2)},
               {"utf8", "\u00e9\u4e2d\U0001F600"}};
  std::string json = EncodeTagsJson(tags);
  EXPECT_EQ(DecodeTagsJson(json), tags) << json;
  EXPECT_EQ(EncodeTagsJson({}), "{}");
  EXPECT_EQ(EncodeTagsJson({{"a", "1"}, {"b", "2"}}), R"({"a":"1","b":"2"})");
}

TEST(TagsJsonTest, DecodesEscapesAndWhitespaceFromOtherWriters) {
  auto tags = DecodeTagsJson(" { \"a\" : \"\\u00e9\\ud83d\\ude00\\/\\b\\f\" } ");
  ASSERT_TRUE(tags.has_value());
  EXPECT_EQ(tags->at("a"), "\u00e9\U0001F600/\b\f");
}

TEST(TagsJsonTest, RejectsAnythingButAFlatObjectOfStrings) {
  for (const char* bad : {"", "[]", "{", "{\"a\":1}", "{\"a\":\"b\",}", "{\"a\" \"b\"}",
                          "{\"a\":\"b\"} x", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}",
                          "{\"a\":\"unterminated}", "{\"a\":\"raw\nnewline\"}"}) {
    EXPECT_EQ(DecodeTagsJson(bad), std::nullopt) << bad;
  }
}

TEST(TagsJsonTest, EncodesStringArrays) {
  EXPECT_EQ(EncodeStringArrayJson({}), "[]");
  EXPECT_EQ(EncodeStringArrayJson({"a", "b\"c"}), R"(["a","b\"c"])");
}

TEST(TagsJsonTest, RoundTripsAndReadsPostgresJsonbOutput) {
  Tags tags = {{"tenant", "acme"}, {"quote\"d", "line\nbreak\\ \u00e9 \U0001F600"}, {"", ""}};
  EXPECT_EQ(DecodeTagsJson(EncodeTagsJson(tags)), tags);
  // jsonb's own output: keys reordered (by length, then bytes), ", " and ": ".
  EXPECT_EQ(DecodeTagsJson(R"({"k": "v", "key": "\u00e9\ud83d\ude00\t"})"),
            (Tags{{"k", "v"}, {"key", "\u00e9\U0001F600\t"}}));
  EXPECT_EQ(DecodeTagsJson("{}"), Tags{});
  for (const char* bad :
       {"", "[]", R"({"k":1})", R"({"k":"v")", R"({"k":"v"} x)", R"({"k":"\ud83d"})"}) {
    EXPECT_EQ(DecodeTagsJson(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace redrive
