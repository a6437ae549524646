// WebhookDispatcher: sends the outbox. One thread (rd-webhooks) reserves due
// deliveries through the committer (webhook_ops::ClaimDue) — never more than
// there are idle senders — and hands them to `concurrency` sender threads
// (rd-webhook-send), which POST through the WebhookSender and record each
// outcome through the committer (webhook_ops::RecordAttempt). It wakes when
// a commit wrote deliveries (Nudge), when a sender frees up, at the next due
// retry, and every refresh_interval (re-reading the subscriptions so nodes
// sharing a database converge).
//
// Leadership: sending the outbox is a duty (duty::kWebhookDispatch). The
// claim loop reserves deliveries only while this node leads it, asking before
// each reservation and every kLeadershipCheckInterval while it does not;
// test deliveries (SendNow) are sent by the node that made them. Every
// reservation carries a fresh token and an outcome is recorded only under
// the token it was sent with (webhook_ops), so an attempt that outlived its
// reservation — on this node or one that lost the duty — records nothing.
//
// Time comes from the engine's Clock. Tests drive RunOnce() on their own
// thread with a ManualClock and a fake sender instead of Start().
//
// Thread-safety: all public methods are thread-safe. Stop() must be called
// while the committer still runs (senders record outcomes through it).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/webhooks/sender.h"
#include "engine/webhooks/subscriptions.h"
#include "engine/webhooks/webhook_ops.h"
#include "engine/webhooks/webhook_types.h"
#include "store/store.h"

namespace redrive::engine {

class WebhookDispatcher {
 public:
  using AttemptCallback = std::function<void(AttemptResult)>;

  // Every reference must outlive the dispatcher.
  WebhookDispatcher(Committer& committer, store::Store& store, const Clock& clock,
                    WebhookSender& sender, SubscriptionCache& subscriptions, Duties& duties,
                    WebhookDispatchOptions options);
  ~WebhookDispatcher();  // Stop()s

  void Start();
  // Stops reserving, lets attempts in flight finish and be recorded, gives
  // back reserved deliveries no sender started, joins. Idempotent.
  void Stop();

  // A commit wrote deliveries due now.
  void Nudge();

  // Sends `claimed` (a test delivery) on a sender thread, records it and
  // calls `done` with the outcome. UNAVAILABLE via done if stopped.
  void SendNow(webhook_ops::ClaimedDelivery claimed, AttemptCallback done);

  // Tests: reserves everything due at clock.Now() and sends it on the
  // calling thread, one by one, if this node leads the dispatch duty.
  // Returns the number of attempts made.
  long long RunOnce();

 private:
  struct Work {
    webhook_ops::ClaimedDelivery claimed;
    AttemptCallback done;  // may be empty
  };
  void ClaimLoop();
  void SenderLoop();
  // POSTs and records one delivery; returns the outcome.
  AttemptResult Attempt(const webhook_ops::ClaimedDelivery& claimed);
  std::vector<webhook_ops::ClaimedDelivery> Claim(int limit);
  // When the earliest pending delivery of an enabled webhook is due.
  std::optional<Instant> NextDue();

  Committer& committer_;
  store::Store& store_;
  const Clock& clock_;
  WebhookSender& sender_;
  SubscriptionCache& subscriptions_;
  Duties& duties_;
  const WebhookDispatchOptions options_;

  std::mutex mu_;
  std::condition_variable claim_cv_;  // the claim loop: nudges, free senders, stop
  std::condition_variable work_cv_;   // the senders: work, stop
  std::deque<Work> work_;
  int busy_ = 0;  // work queued or being sent
  bool nudged_ = false;
  bool stop_ = true;
  std::thread claim_thread_;
  std::vector<std::thread> senders_;
};

}  // namespace redrive::engine
