#include "api/console_assets.h"

#include <algorithm>
#include <string>

#include "api/error_mapping.h"

namespace redrive::api {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// default-src 'self' forbids inline scripts and styles: the console has none,
// so an injected <script> in rendered user data could not run either.
void AddSecurityHeaders(Response& response) {
  response.headers.emplace_back("Content-Security-Policy",
                                "default-src 'self'; frame-ancestors 'none'");
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("X-Frame-Options", "DENY");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
}

// If-None-Match is a comma-separated list of ETags (weak ones W/"..."), or *.
bool Matches(const std::string* if_none_match, std::string_view etag) {
  if (if_none_match == nullptr) return false;
  std::string_view list = *if_none_match;
  if (list.find('*') != std::string_view::npos) return true;
  return list.find(etag) != std::string_view::npos;
}

}  // namespace

std::string_view ContentTypeFor(std::string_view file_name) {
  struct Type {
    std::string_view extension;
    std::string_view content_type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".json", "application/json"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
  };
  for (const Type& t : kTypes) {
    if (EndsWith(file_name, t.extension)) return t.content_type;
  }
  return "application/octet-stream";
}

Response ServeConsoleFile(std::span<const EmbeddedFile> files, std::string_view name,
                          const Request& request) {
  auto file = std::find_if(files.begin(), files.end(),
                           [&](const EmbeddedFile& f) { return f.name == name; });
  Response response;
  if (file == files.end()) {
    response = ErrorResponse(Status::NotFound("no console file " + std::string(name)));
  } else if (Matches(request.header("if-none-match"), file->etag)) {
    response.status = 304;
    response.content_type.clear();
  } else {
    response.content_type = std::string(ContentTypeFor(file->name));
    response.body = std::string(file->data);
  }
  if (file != files.end()) {
    // no-cache: the browser may keep the file but must revalidate, so a new
    // binary's console is picked up at once (a 304 costs one round trip).
    response.headers.emplace_back("Cache-Control", "no-cache");
    response.headers.emplace_back("ETag", std::string(file->etag));
  }
  AddSecurityHeaders(response);
  return response;
}

}  // namespace redrive::api
