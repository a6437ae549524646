// The write operations of webhook delivery, as free functions over a group-
// commit transaction (like job_ops.h): reserve due deliveries for sending,
// record an attempt's outcome, create a test delivery.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/webhook.h"
#include "engine/tx_context.h"
#include "store/store.h"

namespace redrive::engine::webhook_ops {

// A delivery reserved for one attempt, with what its sender needs.
struct ClaimedDelivery {
  WebhookDelivery delivery;
  Instant due_before_claim{};  // restored if the attempt never starts
  std::string url;
  std::string secret;
  SignatureFormat signature_format = SignatureFormat::kRedrive;
  bool test = false;  // a webhook.test delivery: one attempt, no retry
};

// Reserves up to `limit` due deliveries of enabled webhooks: each one's
// next_attempt_at moves to now + policy.attempt_lease, so no other pass or
// node takes it while it is in flight, and a node that dies mid-attempt
// leaves it due again once the lease lapses (at-least-once). Each gets a
// fresh reservation token (UUIDv7 from ctx.random): the attempt's outcome
// is recorded, or the delivery given back, only while the stored delivery
// still carries that token.
Result<std::vector<ClaimedDelivery>> ClaimDue(store::WriteTx& tx, TxContext& ctx, int limit,
                                              const DeliveryRetryPolicy& policy);

// Gives a reserved delivery back, due when it was before the claim, unless
// another attempt reserved it since (its token differs): then nothing.
Status Unclaim(store::WriteTx& tx, const ClaimedDelivery& claimed);

// What recording an attempt did.
struct Recorded {
  bool disabled_webhook = false;  // the webhook disabled itself: refresh subscriptions
  // Nothing recorded: the reservation lapsed and another attempt holds the
  // delivery now (it records its own outcome).
  bool superseded = false;
};

// Applies DecideAfterAttempt to the stored delivery and webhook (a test
// delivery is simply delivered or failed, and leaves the webhook's failure
// count alone), and clears the reservation. A delivery deleted meanwhile
// (its webhook was deleted), no longer pending, or reserved by another
// attempt since (superseded) is left alone: each attempt is recorded at most
// once, by the attempt that holds the delivery.
Result<Recorded> RecordAttempt(store::WriteTx& tx, TxContext& ctx, const ClaimedDelivery& claimed,
                               const AttemptResult& result, const DeliveryRetryPolicy& policy);

// Inserts a webhook.test delivery for `webhook_id`, reserved (with a token)
// for its one attempt. NOT_FOUND if the webhook does not exist.
Result<ClaimedDelivery> CreateTestDelivery(store::WriteTx& tx, TxContext& ctx,
                                           const std::string& webhook_id,
                                           const DeliveryRetryPolicy& policy);

// A new webhook secret (core's FormatWebhookSecret) from the OS's
// randomness: the engine's injected Random is seeded for reproducible tests
// and must not make secrets.
std::string GenerateWebhookSecret();

// Makes the built-in completion webhook (core/webhook.h), with a fresh
// secret, unless it exists. Called for a job that names a
// completion_webhook, in its enqueue's transaction, so the job's deliveries
// always have their webhook.
Status EnsureCompletionWebhook(store::WriteTx& tx, TxContext& ctx);

}  // namespace redrive::engine::webhook_ops
