#include "wire/error_json.h"

#include "core/utf8.h"

namespace redrive::wire {

boost::json::object ErrorToJson(const Status& status) {
  boost::json::object out;
  out["code"] = ErrorCodeName(status.code());
  // Messages and fields may echo client bytes (a percent-decoded path
  // parameter); the body must be valid UTF-8 whatever they were.
  out["message"] = ValidUtf8(status.message());
  if (!status.field().empty()) {
    out["details"] = boost::json::object{{"field", ValidUtf8(status.field())}};
  }
  return out;
}

}  // namespace redrive::wire
