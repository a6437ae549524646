// HttpSender: the real WebhookSender. One POST per Send, on a fresh
// connection (http or https with certificate and host-name verification),
// signed with X-Redrive-Signature, bounded by one total timeout covering
// resolve, connect, TLS, write and read. Unless allow_private_targets, it
// connects only to global addresses (engine/webhooks/target_address.h),
// checked on what the host name resolved to, right before connecting; an
// attempt with none fails as kTargetNotAllowedError without a connection.
// Beast stays in http_sender.cc.
//
// Thread-safety: Send may be called from many threads at once.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "engine/webhooks/sender.h"

namespace redrive::outbound_http {

struct HttpSenderOptions {
  std::chrono::milliseconds timeout{10'000};
  std::string user_agent = "Redrive-Webhooks";
  // Also POST to loopback, private, link-local, ... addresses
  // (--webhook-allow-private-targets).
  bool allow_private_targets = false;
};

class HttpSender final : public engine::WebhookSender {
 public:
  explicit HttpSender(HttpSenderOptions options = {});
  ~HttpSender() override;
  AttemptResult Send(const engine::OutgoingPost& post, Instant now) override;

 private:
  struct Tls;
  HttpSenderOptions options_;
  std::unique_ptr<Tls> tls_;  // the shared TLS context (trust store loaded once)
};

}  // namespace redrive::outbound_http
