#include "wire/field_reader.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "core/time_format.h"

namespace redrive::wire {
namespace {

boost::json::object Obj(std::string_view text) { return boost::json::parse(text).as_object(); }

void ExpectValidation(const Status& s, const std::string& field) {
  EXPECT_EQ(s.code(), ErrorCode::kValidation) << s.ToString();
  EXPECT_EQ(s.field(), field);
}

TEST(FieldReaderTest, IntAcceptsIntegralNumbers) {
  auto o = Obj(R"({"a": 5, "b": 5.0, "c": -100})");
  FieldReader r(o);
  EXPECT_EQ(*r.Int("a", 0, 10).value(), 5);
  EXPECT_EQ(*r.Int("b", 0, 10).value(), 5);
  EXPECT_EQ(*r.Int("c", -100, 100).value(), -100);
}

TEST(FieldReaderTest, IntAbsentOrNullIsNotGiven) {
  auto o = Obj(R"({"n": null})");
  FieldReader r(o);
  EXPECT_FALSE(r.Int("n", 0, 1).value().has_value());
  EXPECT_FALSE(r.Int("missing", 0, 1).value().has_value());
  EXPECT_TRUE(r.IsExplicitNull("n"));
  EXPECT_FALSE(r.IsExplicitNull("missing"));
}

TEST(FieldReaderTest, IntRejectsWrongTypesAndRanges) {
  auto o = Obj(R"({"frac": 1.5, "str": "5", "bool": true, "big": 1e30,
                   "huge": 18446744073709551615, "low": -101, "arr": [1]})");
  FieldReader r(o, "jobs[2]");
  ExpectValidation(r.Int("frac", -100, 100).status(), "jobs[2].frac");
  ExpectValidation(r.Int("str", -100, 100).status(), "jobs[2].str");
  ExpectValidation(r.Int("bool", -100, 100).status(), "jobs[2].bool");
  ExpectValidation(r.Int("big", -100, 100).status(), "jobs[2].big");
  ExpectValidation(r.Int("huge", -100, 100).status(), "jobs[2].huge");
  ExpectValidation(r.Int("low", -100, 100).status(), "jobs[2].low");
  ExpectValidation(r.Int("arr", -100, 100).status(), "jobs[2].arr");
}

TEST(FieldReaderTest, RequiredIntReportsMissingField) {
  auto o = Obj(R"({"priority": null})");
  FieldReader r(o);
  ExpectValidation(r.RequiredInt("priority", 0, 1).status(), "priority");
  EXPECT_NE(r.RequiredInt("priority", 0, 1).status().message().find("required"), std::string::npos);
}

TEST(FieldReaderTest, Strings) {
  auto o = Obj(R"({"s": "abc", "empty": "", "n": 3})");
  FieldReader r(o);
  EXPECT_EQ(*r.String("s", 1, 3).value(), "abc");
  ExpectValidation(r.String("s", 1, 2).status(), "s");
  ExpectValidation(r.String("empty", 1, 2).status(), "empty");
  EXPECT_EQ(*r.String("empty", 0, 2).value(), "");
  ExpectValidation(r.String("n", 0, 2).status(), "n");
  ExpectValidation(r.RequiredString("missing", 0, 2).status(), "missing");
  EXPECT_EQ(r.RequiredString("s", 0, 5).value(), "abc");
}

TEST(FieldReaderTest, BoolsAndNumbers) {
  auto o = Obj(R"({"t": true, "one": 1, "rate": 2.5, "neg": -1})");
  FieldReader r(o);
  EXPECT_TRUE(*r.Bool("t").value());
  ExpectValidation(r.Bool("one").status(), "one");
  EXPECT_DOUBLE_EQ(*r.Number("rate", 0, 10).value(), 2.5);
  EXPECT_DOUBLE_EQ(*r.Number("one", 0, 10).value(), 1.0);
  ExpectValidation(r.Number("neg", 0, 10).status(), "neg");
  ExpectValidation(r.Number("t", 0, 10).status(), "t");
}

TEST(FieldReaderTest, Times) {
  auto o = Obj(R"({"at": "2026-11-29T12:00:00.123Z", "bad": "yesterday", "num": 5})");
  FieldReader r(o);
  auto at = r.Time("at");
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(FormatTime(**at), "2026-11-29T12:00:00.123Z");
  ExpectValidation(r.Time("bad").status(), "bad");
  ExpectValidation(r.Time("num").status(), "num");
  EXPECT_FALSE(r.Time("missing").value().has_value());
}

TEST(FieldReaderTest, ObjectsArraysAndValues) {
  auto o = Obj(R"({"o": {}, "a": [], "s": "x", "n": null})");
  FieldReader r(o, "root");
  EXPECT_NE(r.Object("o").value(), nullptr);
  EXPECT_EQ(r.Object("missing").value(), nullptr);
  ExpectValidation(r.Object("a").status(), "root.a");
  EXPECT_NE(r.Array("a").value(), nullptr);
  ExpectValidation(r.Array("s").status(), "root.s");
  EXPECT_TRUE(r.RequiredValue("s").ok());
  ExpectValidation(r.RequiredValue("n").status(), "root.n");
}

}  // namespace
}  // namespace redrive::wire
