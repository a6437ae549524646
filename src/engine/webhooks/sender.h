// The one I/O seam of webhook delivery: POST a body to a URL and say what
// happened. The HTTP implementation (Beast, TLS, signing) lives in
// src/outbound_http/ and is wired by the app; engine tests use a fake.
#pragma once

#include <string>

#include "core/clock.h"
#include "core/webhook.h"

namespace redrive::engine {

struct OutgoingPost {
  std::string url;
  std::string secret;       // the HMAC key of X-Redrive-Signature
  std::string event;        // X-Redrive-Event
  std::string delivery_id;  // X-Redrive-Delivery
  std::string body;
  // Which headers carry the signature (core/webhook.h), and this attempt's
  // number, counted from 1 (X-Spooled-Delivery-Attempt).
  SignatureFormat signature_format = SignatureFormat::kRedrive;
  int attempt = 1;
};

// Thread-safety: Send is called from several sender threads at once.
class WebhookSender {
 public:
  virtual ~WebhookSender() = default;
  // Blocks until the receiver answered, the timeout passed or the connection
  // failed; never throws. `now` is the signing timestamp.
  virtual AttemptResult Send(const OutgoingPost& post, Instant now) = 0;
};

}  // namespace redrive::engine
