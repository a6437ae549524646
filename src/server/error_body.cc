#include "server/error_body.h"

#include "core/json_text.h"
#include "core/utf8.h"

namespace redrive::server {

std::string ErrorJson(std::string_view code, std::string_view message) {
  // The message may carry client bytes (a parser's complaint); keep it UTF-8.
  return JsonObjectText().Str("code", code).Str("message", ValidUtf8(message)).Build();
}

api::Response ErrorResponse(int status, std::string_view code, std::string_view message) {
  api::Response response;
  response.status = status;
  response.content_type = "application/json";
  response.body = ErrorJson(code, message);
  return response;
}

}  // namespace redrive::server
