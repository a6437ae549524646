// Serving the console's embedded files: Content-Type by extension, an ETag
// with revalidation (Cache-Control: no-cache, 304 on If-None-Match), and the
// security headers every console response carries. The page holds no data
// (data calls carry the API key), so these routes are public.
#pragma once

#include <span>
#include <string_view>

#include "api/console_files.h"
#include "api/http_types.h"

namespace redrive::api {

// "text/html; charset=utf-8" etc.; "application/octet-stream" if unknown.
std::string_view ContentTypeFor(std::string_view file_name);

// The response for `name` among `files` (the embedded ones in production):
// 200 with the body, 304 if the request's If-None-Match names its ETag, or a
// 404 NOT_FOUND error (with the same security headers) if there is no such file.
Response ServeConsoleFile(std::span<const EmbeddedFile> files, std::string_view name,
                          const Request& request);

}  // namespace redrive::api
