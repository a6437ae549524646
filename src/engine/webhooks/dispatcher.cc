#include "engine/webhooks/dispatcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/thread_name.h"

namespace redrive::engine {

WebhookDispatcher::WebhookDispatcher(Committer& committer, store::Store& store, const Clock& clock,
                                     WebhookSender& sender, SubscriptionCache& subscriptions,
                                     Duties& duties, WebhookDispatchOptions options)
    : committer_(committer),
      store_(store),
      clock_(clock),
      sender_(sender),
      subscriptions_(subscriptions),
      duties_(duties),
      options_(std::move(options)) {}

WebhookDispatcher::~WebhookDispatcher() { Stop(); }

void WebhookDispatcher::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!stop_) return;
  stop_ = false;
  nudged_ = true;  // deliveries left over from before a restart are due now
  claim_thread_ = std::thread([this] {
    SetThreadName("rd-webhooks");
    ClaimLoop();
  });
  for (int i = 0; i < std::max(1, options_.concurrency); ++i) {
    senders_.emplace_back([this] {
      SetThreadName("rd-webhook-send");
      SenderLoop();
    });
  }
}

void WebhookDispatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  claim_cv_.notify_all();
  work_cv_.notify_all();
  if (claim_thread_.joinable()) claim_thread_.join();
  for (std::thread& t : senders_) t.join();
  senders_.clear();
  // Reserved but never started: due again at once, for the next start (or
  // another node), instead of waiting out the reservation.
  std::deque<Work> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    left.swap(work_);
    busy_ = 0;
  }
  for (Work& w : left) {
    Status st = committer_.RunAndWait(
        [&](store::WriteTx& tx, TxContext&) { return webhook_ops::Unclaim(tx, w.claimed); });
    if (!st.ok()) spdlog::warn("webhook delivery {}: {}", w.claimed.delivery.id, st.ToString());
    if (w.done) w.done({false, std::nullopt, "the server is shutting down"});
  }
}

void WebhookDispatcher::Nudge() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    nudged_ = true;
  }
  claim_cv_.notify_one();
}

void WebhookDispatcher::SendNow(webhook_ops::ClaimedDelivery claimed, AttemptCallback done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stop_) {
      // A test is sent even when every sender is busy: it waits its turn
      // in the queue, and the claim loop reserves less meanwhile.
      work_.push_back({std::move(claimed), std::move(done)});
      ++busy_;
      work_cv_.notify_one();
      return;
    }
  }
  done({false, std::nullopt, "the server is shutting down"});
}

long long WebhookDispatcher::RunOnce() {
  if (!duties_.Leads(duty::kWebhookDispatch, clock_.Now())) return 0;
  long long attempts = 0;
  for (auto& claimed : Claim(100)) {
    Attempt(claimed);
    ++attempts;
  }
  return attempts;
}

std::vector<webhook_ops::ClaimedDelivery> WebhookDispatcher::Claim(int limit) {
  std::vector<webhook_ops::ClaimedDelivery> claimed;
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext& ctx) -> Status {
    REDRIVE_ASSIGN_OR_RETURN(claimed, webhook_ops::ClaimDue(tx, ctx, limit, options_.policy));
    return Status::Ok();
  });
  if (!st.ok()) {
    spdlog::warn("webhook dispatcher: reserving deliveries failed: {}", st.ToString());
    claimed.clear();
  }
  return claimed;
}

AttemptResult WebhookDispatcher::Attempt(const webhook_ops::ClaimedDelivery& claimed) {
  const WebhookDelivery& d = claimed.delivery;
  AttemptResult result = sender_.Send({claimed.url, claimed.secret, d.event, d.id, d.body,
                                       claimed.signature_format, d.attempts + 1},
                                      clock_.Now());
  webhook_ops::Recorded recorded;
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext& ctx) -> Status {
    REDRIVE_ASSIGN_OR_RETURN(recorded,
                             webhook_ops::RecordAttempt(tx, ctx, claimed, result, options_.policy));
    return Status::Ok();
  });
  if (!st.ok()) {
    // The reservation lapses and the delivery is attempted again: at least once.
    spdlog::warn("webhook delivery {}: recording the outcome failed: {}", d.id, st.ToString());
  } else if (recorded.superseded) {
    spdlog::info(
        "webhook delivery {}: outcome not recorded: the attempt outlived its reservation, which "
        "another attempt holds now",
        d.id);
  } else if (recorded.disabled_webhook) {
    spdlog::warn("webhook {} disabled after {} consecutive failed deliveries", d.webhook_id,
                 kMaxConsecutiveFailures);
    if (Status r = subscriptions_.Refresh(store_); !r.ok()) {
      spdlog::warn("webhook subscriptions: {}", r.ToString());
    }
  }
  return result;
}

void WebhookDispatcher::SenderLoop() {
  for (;;) {
    Work work;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stop_ || !work_.empty(); });
      if (stop_) return;  // Stop() gives back what is still queued
      work = std::move(work_.front());
      work_.pop_front();
    }
    AttemptResult result = Attempt(work.claimed);
    if (work.done) work.done(std::move(result));
    {
      std::lock_guard<std::mutex> lock(mu_);
      --busy_;
      nudged_ = true;  // a failure may have set an earlier retry than the loop knows
    }
    claim_cv_.notify_one();
  }
}

std::optional<Instant> WebhookDispatcher::NextDue() {
  auto tx = store_.BeginRead();
  if (!tx.ok()) return std::nullopt;
  auto next = (*tx)->NextDeliveryDue();
  return next.ok() ? *next : std::nullopt;
}

void WebhookDispatcher::ClaimLoop() {
  auto next_refresh = std::chrono::steady_clock::now();
  for (;;) {
    if (std::chrono::steady_clock::now() >= next_refresh) {
      if (Status st = subscriptions_.Refresh(store_); !st.ok()) {
        spdlog::warn("webhook subscriptions: {}", st.ToString());
      }
      next_refresh = std::chrono::steady_clock::now() + options_.refresh_interval;
    }
    int idle;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // All senders busy: wait for one to finish (or a stop).
      claim_cv_.wait_for(lock, std::chrono::milliseconds(kLeadershipCheckInterval),
                         [&] { return stop_ || busy_ < options_.concurrency; });
      if (stop_) return;
      idle = options_.concurrency - busy_;
      if (idle > 0) nudged_ = false;
    }
    if (idle <= 0) {
      // Still all busy (slow receivers): keep the duty meanwhile.
      duties_.Leads(duty::kWebhookDispatch, clock_.Now());
      continue;
    }
    if (!duties_.Leads(duty::kWebhookDispatch, clock_.Now())) {
      // Another node sends the outbox. Nudges (this node's commits) do not
      // change that: ask again after the check interval.
      std::unique_lock<std::mutex> lock(mu_);
      claim_cv_.wait_for(lock, std::chrono::milliseconds(kLeadershipCheckInterval),
                         [&] { return stop_; });
      if (stop_) return;
      continue;
    }
    // A read first: reserving is a write, and most wake-ups find nothing due.
    std::optional<Instant> next = NextDue();
    bool claimed_nothing = false;
    if (next && *next <= clock_.Now()) {
      std::vector<webhook_ops::ClaimedDelivery> claimed = Claim(idle);
      claimed_nothing = claimed.empty();
      const bool maybe_more = static_cast<int>(claimed.size()) == idle;
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& c : claimed) {
          work_.push_back({std::move(c), nullptr});
          ++busy_;
        }
      }
      work_cv_.notify_all();
      if (maybe_more) continue;
      next = NextDue();
    }
    // Sleep until the next due retry, a nudge, or the refresh — and ask
    // about the duty at least every check interval, which keeps the hold.
    std::chrono::milliseconds wait =
        std::min<std::chrono::milliseconds>(options_.refresh_interval, kLeadershipCheckInterval);
    if (next) {
      auto until = std::chrono::ceil<std::chrono::milliseconds>(*next - clock_.Now());
      wait = std::clamp(until, std::chrono::milliseconds(0), wait);
    }
    // Due but not reservable (a store error, a race with a disable): do not spin.
    if (claimed_nothing) wait = std::max(wait, std::chrono::milliseconds(100));
    std::unique_lock<std::mutex> lock(mu_);
    claim_cv_.wait_for(lock, wait, [&] { return stop_ || nudged_; });
    if (stop_) return;
  }
}

}  // namespace redrive::engine
