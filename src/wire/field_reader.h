// Typed, validated reads of a request's JSON object. Every failure is a
// VALIDATION_ERROR naming the field by its JSON path ("jobs[3].priority"), so
// clients learn exactly what to fix.
//
// Conventions (shared by every route):
//   - A key that is absent or null is "not given": optional reads yield
//     nullopt, required reads fail with "<field> is required". (Clients that
//     serialize unset optionals as null then work unchanged.)
//   - Integers must be JSON numbers with an integral value (5 and 5.0 are
//     fine; 5.5, "5", true are not) within the given inclusive range.
//   - Strings are length-checked in bytes (UTF-8), after JSON decoding.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace redrive::wire {

class FieldReader {
 public:
  // `path` prefixes field names in errors: "jobs[3]" gives "jobs[3].payload".
  // `object` must outlive the reader.
  explicit FieldReader(const boost::json::object& object, std::string path = {});

  // The value at `key`, or nullptr when absent or null.
  const boost::json::value* Find(std::string_view key) const;
  // True when `key` is present with the value null (only PATCH-like bodies
  // care: there null means "clear" rather than "unchanged").
  bool IsExplicitNull(std::string_view key) const;
  // The error path of `key`.
  std::string Path(std::string_view key) const;

  Result<std::optional<int64_t>> Int(std::string_view key, int64_t min, int64_t max) const;
  Result<int64_t> RequiredInt(std::string_view key, int64_t min, int64_t max) const;
  // A finite number (integral or not) in [min, max].
  Result<std::optional<double>> Number(std::string_view key, double min, double max) const;
  Result<std::optional<bool>> Bool(std::string_view key) const;
  // Strings of at most max_bytes; `min_bytes` 1 rejects "".
  Result<std::optional<std::string>> String(std::string_view key, size_t min_bytes,
                                            size_t max_bytes) const;
  Result<std::string> RequiredString(std::string_view key, size_t min_bytes,
                                     size_t max_bytes) const;
  // An RFC 3339 time string.
  Result<std::optional<Instant>> Time(std::string_view key) const;
  // nullptr when not given.
  Result<const boost::json::object*> Object(std::string_view key) const;
  Result<const boost::json::array*> Array(std::string_view key) const;
  // Any JSON value (null counts as not given).
  Result<const boost::json::value*> RequiredValue(std::string_view key) const;

 private:
  const boost::json::object& object_;
  std::string path_;
};

// The integral value of `v` if it is a JSON number with an integral value in
// [min, max]; otherwise a VALIDATION_ERROR for `path`.
Result<int64_t> IntValue(const boost::json::value& v, const std::string& path, int64_t min,
                         int64_t max);

// The error for a missing required field.
Status MissingField(const std::string& path);

}  // namespace redrive::wire
