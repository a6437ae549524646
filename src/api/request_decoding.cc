#include "api/request_decoding.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/url/parse.hpp>
#include <cctype>
#include <charconv>

#include "wire/json_text.h"

namespace redrive::api {
namespace {

// Payloads may nest deeper than Boost.JSON's default limit of 32.
// (kMaxJsonDepth: core/limits.h)

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsWriteMethod(const std::string& method) { return method == "POST" || method == "PUT"; }

}  // namespace

Result<boost::json::object> Call::Body() const { return DecodeJsonBody(request, options.limits); }

Result<Target> ParseTarget(std::string_view target) {
  auto url = boost::urls::parse_origin_form(target);
  if (!url) return Status::BadRequest("malformed request target");
  Target out;
  for (auto segment : url->segments()) out.segments.emplace_back(segment);
  if (!out.segments.empty() && out.segments.back().empty()) out.segments.pop_back();
  for (auto param : url->params()) {
    out.query.emplace(std::string(param.key), param.has_value ? std::string(param.value) : "");
  }
  return out;
}

bool IsJsonContentType(std::string_view content_type) {
  std::string_view media = Trim(content_type.substr(0, content_type.find(';')));
  constexpr std::string_view kJson = "application/json";
  if (media.size() != kJson.size()) return false;
  for (size_t i = 0; i < media.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(media[i])) != kJson[i]) return false;
  }
  return true;
}

Result<boost::json::object> DecodeJsonBody(const Request& request, const ServerLimits& limits) {
  if (!IsWriteMethod(request.method) || request.body.empty()) return boost::json::object();
  if (request.body.size() > limits.max_body_bytes) {
    return Status(ErrorCode::kPayloadTooLarge,
                  "request body exceeds " + std::to_string(limits.max_body_bytes) + " bytes");
  }
  const std::string* content_type = request.header("content-type");
  if (content_type == nullptr || !IsJsonContentType(*content_type)) {
    return Status(ErrorCode::kUnsupportedMediaType,
                  "request body must be JSON (Content-Type: application/json)");
  }
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(request.body, ec, {}, options);
  if (ec) return Status::BadRequest("malformed JSON: " + ec.message());
  if (!value.is_object()) return Status::BadRequest("request body must be a JSON object");
  // Every route's body passes here, so payloads, results, tags, metadata,
  // bulk items and acks are all covered by this one check.
  if (std::optional<std::string> path = wire::FindNonFiniteNumber(value)) {
    return Status::Validation(*path, *path + " is a number out of range (it must fit a double)");
  }
  return std::move(value.get_object());
}

std::optional<std::string> QueryString(const QueryParams& query, std::string_view key) {
  auto it = query.find(key);
  if (it == query.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

Result<std::optional<int64_t>> QueryInt(const QueryParams& query, std::string_view key, int64_t min,
                                        int64_t max) {
  std::optional<std::string> text = QueryString(query, key);
  if (!text) return std::optional<int64_t>();
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  std::string name(key);
  if (ec != std::errc() || end != text->data() + text->size()) {
    return Status::Validation(name, name + " must be an integer");
  }
  if (value < min || value > max) {
    return Status::Validation(
        name, name + " must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return std::optional<int64_t>(value);
}

Result<int> QueryLimit(const QueryParams& query, std::string_view key, int max, int fallback) {
  std::optional<std::string> text = QueryString(query, key);
  if (!text) return fallback;
  const std::string name(key);
  const bool digits = text->find_first_not_of("0123456789") == std::string::npos;
  if (!digits) {
    return Status::Validation(name, name + " must be a non-negative integer (1 to " +
                                        std::to_string(max) + "; larger is capped at " +
                                        std::to_string(max) + ")");
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec == std::errc::result_out_of_range || value > max) return max;  // all digits: huge
  return static_cast<int>(std::max<int64_t>(value, 1));
}

Status QueryFixedOrder(const QueryParams& query, std::string_view column) {
  const std::string order = "this list is ordered by " + std::string(column) + ", newest first";
  std::optional<std::string> by = QueryString(query, "order_by");
  if (by && *by != column) {
    return Status::Validation("order_by", "order_by must be " + std::string(column) + ": " + order);
  }
  std::optional<std::string> dir = QueryString(query, "order_dir");
  if (dir && *dir != "desc")
    return Status::Validation("order_dir", "order_dir must be desc: " + order);
  return Status::Ok();
}

Result<std::optional<std::string>> QueryQueueName(const QueryParams& query) {
  std::optional<std::string> name = QueryString(query, "queue_name");
  if (name && !IsValidQueueName(*name)) {
    return Status::Validation("queue_name",
                              "queue_name must be 1-100 characters of "
                              "[A-Za-z0-9._-], not starting with '.' or '-'");
  }
  return name;
}

Result<std::optional<JobStatus>> QueryStatus(const QueryParams& query) {
  std::optional<std::string> text = QueryString(query, "status");
  if (!text) return std::optional<JobStatus>();
  std::optional<JobStatus> status = ParseJobStatus(*text);
  if (!status) {
    return Status::Validation("status", "status must be one of " + JobStatusNames());
  }
  return status;
}

Result<std::optional<DeadReason>> QueryDeadReason(const QueryParams& query) {
  std::optional<std::string> text = QueryString(query, "dead_reason");
  if (!text) return std::optional<DeadReason>();
  std::optional<DeadReason> reason = ParseDeadReason(*text);
  if (!reason) {
    return Status::Validation("dead_reason", "dead_reason must be one of " + DeadReasonNames());
  }
  return reason;
}

Result<bool> QueryBool(const QueryParams& query, std::string_view key, bool fallback) {
  std::optional<std::string> text = QueryString(query, key);
  if (!text) return fallback;
  if (*text == "true" || *text == "1") return true;
  if (*text == "false" || *text == "0") return false;
  return Status::Validation(std::string(key), std::string(key) + " must be true or false");
}

}  // namespace redrive::api
