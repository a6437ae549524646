// Pure parsing of the parts of an HTTP/1.1 response that the bench client
// needs: the status line and the few headers that decide how to read the body
// and whether the connection stays open. No I/O, so it is unit-tested directly.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/status.h"

namespace redrive::bench {

struct ResponseHead {
  int status = 0;
  std::optional<size_t> content_length;
  bool chunked = false;
  // HTTP/1.1 keeps the connection unless `Connection: close`; 1.0 only with keep-alive.
  bool keep_alive = true;
};

// `head` is the status line and header lines, without the final blank line.
Result<ResponseHead> ParseResponseHead(std::string_view head);

// The hex size at the start of a chunk-size line (extensions after ';' ignored).
std::optional<size_t> ParseChunkSize(std::string_view line);

}  // namespace redrive::bench
