// The web console's static files (console/ at the repository root), embedded
// into the binary at build time: the definition of ConsoleFiles() is generated
// by cmake/embed_files.cmake into the build directory.
#pragma once

#include <span>
#include <string_view>

namespace redrive::api {

struct EmbeddedFile {
  std::string_view name;  // relative to console/, e.g. "app.js"
  std::string_view data;
  std::string_view etag;  // a strong ETag, quoted: "\"3f2a...\""
};

std::span<const EmbeddedFile> ConsoleFiles();

}  // namespace redrive::api
