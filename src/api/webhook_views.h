// What each role sees of a webhook and of its deliveries. Admins see them as
// stored; any other role that may read them (viewers) sees the same JSON
// shapes (wire/webhook_json.h) with three values replaced:
//   url              "scheme://host[:port]/…": a webhook URL is often a
//                    credential (a Slack incoming-webhook path is a bearer
//                    token; so is userinfo), so userinfo, path, query and
//                    fragment are not shown;
//   last_error       "HTTP 503" when the receiver answered, else the generic
//                    kViewerDeliveryError: a viewer must not tell "Connection
//                    refused" from "timed out" (a port scan by proxy);
//   disabled_reason  its "last: ..." part likewise.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/api.h"
#include "core/webhook.h"

namespace redrive::api {

inline constexpr std::string_view kViewerDeliveryError = "delivery failed";

boost::json::object WebhookJsonFor(const Webhook& webhook, Role role);
boost::json::object DeliveryJsonFor(const WebhookDelivery& delivery, Role role);

// "https://hooks.slack.com/…" for "https://user:pw@hooks.slack.com/T0/B0/x?y".
std::string RedactedWebhookUrl(std::string_view url);

// An attempt's error as viewers see it (see above); nullopt stays nullopt.
std::optional<std::string> ViewerAttemptError(const std::optional<std::string>& error);

}  // namespace redrive::api
