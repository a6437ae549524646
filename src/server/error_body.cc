#include "server/error_body.h"

#include "core/json_text.h"

namespace redrive::server {

std::string ErrorJson(std::string_view code, std::string_view message) {
  return JsonObjectText().Str("code", code).Str("message", message).Build();
}

api::Response ErrorResponse(int status, std::string_view code, std::string_view message) {
  api::Response response;
  response.status = status;
  response.content_type = "application/json";
  response.body = ErrorJson(code, message);
  return response;
}

}  // namespace redrive::server
