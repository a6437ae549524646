// The contract's error body, {"code": "...", "message": "..."}, for the few
// errors the server answers itself (413, 400 for unparsable bytes, 500 for a
// handler that throws) before or instead of the Api.
#pragma once

#include <string>
#include <string_view>

#include "api/http_types.h"

namespace redrive::server {

// `code` is a contract error code such as "PAYLOAD_TOO_LARGE".
std::string ErrorJson(std::string_view code, std::string_view message);

api::Response ErrorResponse(int status, std::string_view code, std::string_view message);

}  // namespace redrive::server
