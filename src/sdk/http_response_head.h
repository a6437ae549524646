// Pure parsing of the parts of an HTTP/1.1 response the SDK's connection
// needs: the status line, the few headers that decide how to read the body
// and whether the connection stays open, and chunk-size lines. No I/O, so it
// is unit-tested directly (http_response_head_test.cc).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/status.h"

namespace redrive::sdk {

struct ResponseHead {
  int status = 0;
  std::optional<size_t> content_length;
  bool chunked = false;
  // HTTP/1.1 keeps the connection unless `Connection: close`; 1.0 only with keep-alive.
  bool keep_alive = true;
};

// `head` is the status line and header lines, without the final blank line.
// UNAVAILABLE when it is not an HTTP/1.x response head.
Result<ResponseHead> ParseResponseHead(std::string_view head);

// The hex size at the start of a chunk-size line (extensions after ';' ignored).
std::optional<size_t> ParseChunkSize(std::string_view line);

}  // namespace redrive::sdk
