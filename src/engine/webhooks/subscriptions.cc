#include "engine/webhooks/subscriptions.h"

#include <algorithm>

namespace redrive::engine {
namespace {

std::shared_ptr<const WebhookSubscriptions> Snapshot(const std::vector<Webhook>& all) {
  auto s = std::make_shared<WebhookSubscriptions>();
  for (const Webhook& w : all) {
    if (w.enabled) s->webhooks.push_back(w);
  }
  return s;
}

}  // namespace

bool WebhookSubscriptions::Wants(std::string_view event) const {
  return std::any_of(webhooks.begin(), webhooks.end(),
                     [&](const Webhook& w) { return WebhookWants(w, event); });
}

SubscriptionCache::SubscriptionCache() : current_(std::make_shared<WebhookSubscriptions>()) {}

std::shared_ptr<const WebhookSubscriptions> SubscriptionCache::Get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

void SubscriptionCache::Set(const std::vector<Webhook>& all) {
  auto snapshot = Snapshot(all);
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(snapshot);
  ++generation_;
}

Status SubscriptionCache::Refresh(store::Store& store) {
  std::lock_guard<std::mutex> serial(refresh_mu_);
  uint64_t seen;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seen = generation_;
  }
  REDRIVE_ASSIGN_OR_RETURN(auto tx, store.BeginRead());
  REDRIVE_ASSIGN_OR_RETURN(auto all, tx->ListWebhooks());
  auto snapshot = Snapshot(all);
  std::lock_guard<std::mutex> lock(mu_);
  if (generation_ != seen) return Status::Ok();
  current_ = std::move(snapshot);
  ++generation_;
  return Status::Ok();
}

}  // namespace redrive::engine
