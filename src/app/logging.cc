#include "app/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <utility>

#include "server/request_id.h"

namespace redrive::app {
namespace {

LogFormat current_format = LogFormat::kText;

// The length of the valid UTF-8 sequence at the start of `s`, 0 if there is none.
size_t Utf8SequenceLength(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) { return i < s.size() && (byte(i) & 0xC0) == 0x80; };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return continuation(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (b0 == 0xE0 && byte(1) < 0xA0) return 0;   // overlong
    if (b0 == 0xED && byte(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (b0 == 0xF0 && byte(1) < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && byte(1) >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

void AppendTime(spdlog::log_clock::time_point time, std::string& out) {
  const auto since_epoch = time.time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds);
  const std::time_t t = static_cast<std::time_t>(seconds.count());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  const size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  out.append(buf, n);
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03dZ", static_cast<int>(millis.count()));
  out += frac;
}

void AppendJsonField(std::string_view name, std::string_view value, std::string& out) {
  out += ",\"";
  out += name;
  out += "\":\"";
  AppendJsonStringBody(value, out);
  out += '"';
}

// One JSON object per line; the fields in a fixed order, optional ones left
// out when empty.
class JsonFormatter final : public spdlog::formatter {
 public:
  explicit JsonFormatter(std::string node) : node_(std::move(node)) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string line = "{\"time\":\"";
    AppendTime(msg.time, line);
    line += '"';
    const auto level = spdlog::level::to_string_view(msg.level);
    AppendJsonField("level", std::string_view(level.data(), level.size()), line);
    if (!node_.empty()) AppendJsonField("node", node_, line);
    if (const std::string& id = server::CurrentRequestId(); !id.empty()) {
      AppendJsonField("request_id", id, line);
    }
    AppendJsonField("message", std::string_view(msg.payload.data(), msg.payload.size()), line);
    line += "}\n";
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>(node_);
  }

 private:
  const std::string node_;
};

// %* of the text pattern: "[req ID] " on a request's lines, nothing elsewhere.
class RequestIdFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const std::string& id = server::CurrentRequestId();
    if (id.empty()) return;
    const std::string text = "[req " + id + "] ";
    dest.append(text.data(), text.data() + text.size());
  }

  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<RequestIdFlag>();
  }
};

void InstallFormatter(const std::string& node_id) {
  if (current_format == LogFormat::kJson) {
    spdlog::set_formatter(std::make_unique<JsonFormatter>(node_id));
    return;
  }
  // Node ids are letters, digits and . _ - (serve_config.cc): no pattern flags.
  const std::string node = node_id.empty() ? "" : "[" + node_id + "] ";
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<RequestIdFlag>('*').set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ " + node +
                                                      "%*%v");
  spdlog::set_formatter(std::move(formatter));
}

}  // namespace

void AppendJsonStringBody(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  while (!text.empty()) {
    const unsigned char c = static_cast<unsigned char>(text.front());
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (size_t n = Utf8SequenceLength(text); n > 0) {
      out.append(text.substr(0, n));
      text.remove_prefix(n);
      continue;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD for the one byte that starts no sequence
    }
    text.remove_prefix(1);
  }
}

void ConfigureLogging(const std::string& level, LogFormat format) {
  auto logger = spdlog::stderr_color_mt("redrive");
  // JSON lines are for machines: no colour codes around the level.
  if (format == LogFormat::kJson) {
    for (auto& sink : logger->sinks()) {
      if (auto* colour = dynamic_cast<spdlog::sinks::stderr_color_sink_mt*>(sink.get())) {
        colour->set_color_mode(spdlog::color_mode::never);
      }
    }
  }
  spdlog::set_default_logger(logger);
  current_format = format;
  InstallFormatter("");
  spdlog::set_level(spdlog::level::from_str(level));
}

void SetLogNode(const std::string& node_id) { InstallFormatter(node_id); }

}  // namespace redrive::app
