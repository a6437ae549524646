#include "server/error_body.h"

#include <cstdio>

namespace redrive::server {
namespace {

// JSON string escaping; enough for messages that may quote parser errors.
void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

}  // namespace

std::string ErrorJson(std::string_view code, std::string_view message) {
  std::string out = "{\"code\":";
  AppendJsonString(out, code);
  out += ",\"message\":";
  AppendJsonString(out, message);
  out += '}';
  return out;
}

api::Response ErrorResponse(int status, std::string_view code, std::string_view message) {
  api::Response response;
  response.status = status;
  response.content_type = "application/json";
  response.body = ErrorJson(code, message);
  return response;
}

}  // namespace redrive::server
