#include "api/webhook_views.h"

#include <boost/url/parse.hpp>

#include "wire/webhook_json.h"

namespace redrive::api {
namespace {

// The text core's DecideAfterAttempt puts before the last error.
constexpr std::string_view kLastErrorMark = "; last: ";

bool IsHttpStatusError(std::string_view error) {
  if (!error.starts_with("HTTP ") || error.size() != 8) return false;
  for (char c : error.substr(5)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::string RedactedWebhookUrl(std::string_view url) {
  // parse_uri, not parse_absolute_uri: a fragment must not make it fail.
  auto u = boost::urls::parse_uri(url);
  // Stored URLs were checked when written; an unreadable one shows nothing.
  if (!u || !u->has_authority()) return "…";
  return std::string(u->scheme()) + "://" + std::string(u->encoded_host_and_port()) + "/…";
}

std::optional<std::string> ViewerAttemptError(const std::optional<std::string>& error) {
  if (!error) return std::nullopt;
  if (IsHttpStatusError(*error)) return error;
  return std::string(kViewerDeliveryError);
}

boost::json::object WebhookJsonFor(const Webhook& webhook, Role role) {
  boost::json::object out = wire::WebhookToJson(webhook);
  if (role == Role::kAdmin) return out;
  out["url"] = RedactedWebhookUrl(webhook.url);
  if (webhook.disabled_reason) {
    std::string reason = *webhook.disabled_reason;
    if (size_t at = reason.find(kLastErrorMark); at != std::string::npos) {
      const size_t tail = at + kLastErrorMark.size();
      reason = reason.substr(0, tail) + *ViewerAttemptError(reason.substr(tail));
    }
    out["disabled_reason"] = reason;
  }
  return out;
}

boost::json::object DeliveryJsonFor(const WebhookDelivery& delivery, Role role) {
  boost::json::object out = wire::DeliveryToJson(delivery);
  if (role == Role::kAdmin) return out;
  if (delivery.url) out["url"] = RedactedWebhookUrl(*delivery.url);
  if (std::optional<std::string> error = ViewerAttemptError(delivery.last_error)) {
    out["last_error"] = *error;
  }
  return out;
}

}  // namespace redrive::api
