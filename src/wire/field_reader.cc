#include "wire/field_reader.h"

#include <cmath>
#include <limits>

#include "core/time_format.h"

namespace redrive::wire {
namespace {

Status OutOfRange(const std::string& path, int64_t min, int64_t max) {
  return Status::Validation(
      path, path + " must be between " + std::to_string(min) + " and " + std::to_string(max));
}

Status WrongType(const std::string& path, const char* what) {
  return Status::Validation(path, path + " must be " + what);
}

}  // namespace

Status MissingField(const std::string& path) {
  return Status::Validation(path, path + " is required");
}

Result<int64_t> IntValue(const boost::json::value& v, const std::string& path, int64_t min,
                         int64_t max) {
  if (v.is_int64()) {
    int64_t i = v.get_int64();
    if (i < min || i > max) return OutOfRange(path, min, max);
    return i;
  }
  // Only integers above INT64_MAX parse as uint64: always out of range.
  if (v.is_uint64()) return OutOfRange(path, min, max);
  if (v.is_double()) {
    double d = v.get_double();
    if (!std::isfinite(d) || std::trunc(d) != d) return WrongType(path, "an integer");
    // Compare as doubles before converting: the cast of an out-of-range
    // double is undefined.
    if (d < static_cast<double>(min) || d > static_cast<double>(max)) {
      return OutOfRange(path, min, max);
    }
    return static_cast<int64_t>(d);
  }
  return WrongType(path, "an integer");
}

FieldReader::FieldReader(const boost::json::object& object, std::string path)
    : object_(object), path_(std::move(path)) {}

const boost::json::value* FieldReader::Find(std::string_view key) const {
  const boost::json::value* v = object_.if_contains(key);
  if (v == nullptr || v->is_null()) return nullptr;
  return v;
}

bool FieldReader::IsExplicitNull(std::string_view key) const {
  const boost::json::value* v = object_.if_contains(key);
  return v != nullptr && v->is_null();
}

std::string FieldReader::Path(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  return path_ + "." + std::string(key);
}

Result<std::optional<int64_t>> FieldReader::Int(std::string_view key, int64_t min,
                                                int64_t max) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return std::optional<int64_t>();
  Result<int64_t> i = IntValue(*v, Path(key), min, max);
  if (!i.ok()) return i.status();
  return std::optional<int64_t>(*i);
}

Result<int64_t> FieldReader::RequiredInt(std::string_view key, int64_t min, int64_t max) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return MissingField(Path(key));
  return IntValue(*v, Path(key), min, max);
}

Result<std::optional<double>> FieldReader::Number(std::string_view key, double min,
                                                  double max) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return std::optional<double>();
  if (!v->is_number()) return WrongType(Path(key), "a number");
  double d = v->to_number<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    return Status::Validation(Path(key), Path(key) + " is out of range");
  }
  return std::optional<double>(d);
}

Result<std::optional<bool>> FieldReader::Bool(std::string_view key) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return std::optional<bool>();
  if (!v->is_bool()) return WrongType(Path(key), "a boolean");
  return std::optional<bool>(v->get_bool());
}

Result<std::optional<std::string>> FieldReader::String(std::string_view key, size_t min_bytes,
                                                       size_t max_bytes) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return WrongType(Path(key), "a string");
  const boost::json::string& s = v->get_string();
  if (s.size() < min_bytes || s.size() > max_bytes) {
    return Status::Validation(Path(key), Path(key) + " must be " + std::to_string(min_bytes) + "-" +
                                             std::to_string(max_bytes) + " characters");
  }
  return std::optional<std::string>(std::string(s));
}

Result<std::string> FieldReader::RequiredString(std::string_view key, size_t min_bytes,
                                                size_t max_bytes) const {
  Result<std::optional<std::string>> s = String(key, min_bytes, max_bytes);
  if (!s.ok()) return s.status();
  if (!s->has_value()) return MissingField(Path(key));
  return std::move(**s);
}

Result<std::optional<Instant>> FieldReader::Time(std::string_view key) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return std::optional<Instant>();
  std::optional<Instant> t;
  if (v->is_string()) t = ParseTime(v->get_string());
  if (!t) return WrongType(Path(key), "an RFC 3339 time, e.g. 2026-11-29T12:00:00.123Z");
  return t;
}

Result<const boost::json::object*> FieldReader::Object(std::string_view key) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return static_cast<const boost::json::object*>(nullptr);
  if (!v->is_object()) return WrongType(Path(key), "an object");
  return &v->get_object();
}

Result<const boost::json::array*> FieldReader::Array(std::string_view key) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return static_cast<const boost::json::array*>(nullptr);
  if (!v->is_array()) return WrongType(Path(key), "an array");
  return &v->get_array();
}

Result<const boost::json::value*> FieldReader::RequiredValue(std::string_view key) const {
  const boost::json::value* v = Find(key);
  if (v == nullptr) return MissingField(Path(key));
  return v;
}

}  // namespace redrive::wire
