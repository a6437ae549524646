#include "wire/error_json.h"

namespace redrive::wire {

boost::json::object ErrorToJson(const Status& status) {
  boost::json::object out;
  out["code"] = ErrorCodeName(status.code());
  out["message"] = status.message();
  if (!status.field().empty()) out["details"] = boost::json::object{{"field", status.field()}};
  return out;
}

}  // namespace redrive::wire
