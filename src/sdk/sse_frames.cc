#include "sdk/sse_frames.h"

namespace redrive::sdk {

bool SseFrames::Feed(std::string_view bytes, const std::function<bool(std::string_view)>& on_data) {
  pending_.append(bytes);
  size_t start = 0;
  size_t end;
  bool go_on = true;
  while (go_on && (end = pending_.find("\n\n", start)) != std::string::npos) {
    std::string data;
    bool has_data = false;
    std::string_view frame = std::string_view(pending_).substr(start, end - start);
    while (!frame.empty()) {
      const size_t eol = frame.find('\n');
      std::string_view line = frame.substr(0, eol);
      frame = eol == std::string_view::npos ? std::string_view() : frame.substr(eol + 1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!line.starts_with("data:")) continue;
      line.remove_prefix(5);
      if (line.starts_with(' ')) line.remove_prefix(1);
      if (has_data) data += '\n';
      data.append(line);
      has_data = true;
    }
    start = end + 2;
    if (has_data) go_on = on_data(data);
  }
  pending_.erase(0, start);
  return go_on;
}

}  // namespace redrive::sdk
