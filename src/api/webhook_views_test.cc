// What viewers see of webhook URLs and attempt errors, as tables.
#include "api/webhook_views.h"

#include <gtest/gtest.h>

namespace redrive::api {
namespace {

TEST(WebhookViewsTest, RedactedUrlsKeepOnlySchemeHostAndPort) {
  struct Case {
    const char* url;
    const char* shown;
  };
  const Case cases[] = {
      {"https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", "https://hooks.slack.com/…"},
      {"https://user:p%40ss@hooks.example.com/in?token=abc#frag", "https://hooks.example.com/…"},
      {"http://token@example.com:8080/x", "http://example.com:8080/…"},
      {"https://example.com", "https://example.com/…"},
      {"https://example.com/", "https://example.com/…"},
      {"https://example.com?key=secret", "https://example.com/…"},
      {"http://[2001:db8::1]:9000/hook", "http://[2001:db8::1]:9000/…"},
      {"not a url", "…"},
      {"mailto:someone@example.com", "…"},
  };
  for (const Case& c : cases) EXPECT_EQ(RedactedWebhookUrl(c.url), c.shown) << c.url;
}

TEST(WebhookViewsTest, ViewersSeeAnHttpStatusOrAGenericError) {
  EXPECT_EQ(ViewerAttemptError(std::nullopt), std::nullopt);
  EXPECT_EQ(ViewerAttemptError("HTTP 503"), "HTTP 503");
  EXPECT_EQ(ViewerAttemptError("HTTP 404"), "HTTP 404");
  for (const char* detail : {"Connection refused", "timed out", "Host not found (authoritative)",
                             "invalid URL", "target address not allowed",
                             "certificate verify failed", "HTTP 5033", "HTTP abc", "HTTP ", ""}) {
    EXPECT_EQ(ViewerAttemptError(std::string(detail)), "delivery failed") << detail;
  }
}

Webhook SlackHook() {
  Webhook w;
  w.id = "wh-1";
  w.url = "https://u:pw@hooks.slack.com/services/T0/B0/secret";
  w.disabled_reason = "20 consecutive failed deliveries; last: Connection refused";
  return w;
}

TEST(WebhookViewsTest, AdminsSeeWebhooksAsStored) {
  boost::json::object admin = WebhookJsonFor(SlackHook(), Role::kAdmin);
  EXPECT_EQ(admin.at("url"), "https://u:pw@hooks.slack.com/services/T0/B0/secret");
  EXPECT_EQ(admin.at("disabled_reason"),
            "20 consecutive failed deliveries; last: Connection refused");
}

TEST(WebhookViewsTest, ViewersSeeTheSameShapeWithRedactedValues) {
  const Webhook w = SlackHook();
  boost::json::object admin = WebhookJsonFor(w, Role::kAdmin);
  boost::json::object viewer = WebhookJsonFor(w, Role::kViewer);
  EXPECT_EQ(viewer.at("url"), "https://hooks.slack.com/…");
  EXPECT_EQ(viewer.at("disabled_reason"),
            "20 consecutive failed deliveries; last: delivery failed");
  ASSERT_EQ(viewer.size(), admin.size());
  for (const auto& [key, value] : admin) {
    ASSERT_TRUE(viewer.contains(key)) << key;
    if (key != "url" && key != "disabled_reason") {
      EXPECT_EQ(viewer.at(key), value) << key;
    }
  }
  Webhook answered = w;
  answered.disabled_reason = "20 consecutive failed deliveries; last: HTTP 500";
  EXPECT_EQ(WebhookJsonFor(answered, Role::kViewer).at("disabled_reason"),
            "20 consecutive failed deliveries; last: HTTP 500");
}

TEST(WebhookViewsTest, DeliveriesShowViewersOnlyTheErrorClass) {
  WebhookDelivery d;
  d.id = "d-1";
  d.body = "{}";
  d.last_error = "Connection refused";
  EXPECT_EQ(DeliveryJsonFor(d, Role::kAdmin).at("last_error"), "Connection refused");
  EXPECT_EQ(DeliveryJsonFor(d, Role::kViewer).at("last_error"), "delivery failed");
  d.last_error = std::nullopt;
  EXPECT_TRUE(DeliveryJsonFor(d, Role::kViewer).at("last_error").is_null());
  EXPECT_EQ(DeliveryJsonFor(d, Role::kViewer).size(), DeliveryJsonFor(d, Role::kAdmin).size());
}

}  // namespace
}  // namespace redrive::api
