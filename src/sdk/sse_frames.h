// Server-sent events cut into their `data:` payloads as bytes arrive: pure,
// so a frame split across reads (or several in one) is tested without a
// socket. Comments (": ping") and other fields are skipped.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace redrive::sdk {

class SseFrames {
 public:
  // Adds `bytes`; calls `on_data` with the data of each frame completed
  // (several `data:` lines of one frame joined by "\n"). Stops, and
  // returns false, as soon as `on_data` does.
  bool Feed(std::string_view bytes, const std::function<bool(std::string_view)>& on_data);

 private:
  std::string pending_;  // an incomplete frame
};

}  // namespace redrive::sdk
