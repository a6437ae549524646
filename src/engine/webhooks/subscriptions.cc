#include "engine/webhooks/subscriptions.h"

#include <algorithm>

namespace redrive::engine {
namespace {

std::shared_ptr<const WebhookSubscriptions> Snapshot(const std::vector<Webhook>& all,
                                                     int64_t version) {
  auto s = std::make_shared<WebhookSubscriptions>();
  s->version = version;
  for (const Webhook& w : all) {
    // The built-in completion webhook subscribes to nothing: the outbox
    // writes its deliveries for the jobs that name a URL.
    if (IsCompletionWebhook(w)) {
      s->completion_webhook = true;
    } else if (w.enabled) {
      s->webhooks.push_back(w);
    }
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

void SubscriptionCache::Set(const std::vector<Webhook>& all, int64_t version) {
  auto snapshot = Snapshot(all, version);
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(snapshot);
}

void SubscriptionCache::Offer(std::shared_ptr<const WebhookSubscriptions> snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  if (snapshot->version >= current_->version) current_ = std::move(snapshot);
}

Result<std::shared_ptr<const WebhookSubscriptions>> SubscriptionCache::ForTransaction(
    store::ReadTx& tx) {
  REDRIVE_ASSIGN_OR_RETURN(int64_t version, tx.WebhooksVersion());
  auto cached = Get();
  if (cached->version == version) return cached;
  REDRIVE_ASSIGN_OR_RETURN(auto all, tx.ListWebhooks());
  auto snapshot = Snapshot(all, version);
  Offer(snapshot);
  return std::shared_ptr<const WebhookSubscriptions>(std::move(snapshot));
}

Status SubscriptionCache::Refresh(store::Store& store) {
  REDRIVE_ASSIGN_OR_RETURN(auto tx, store.BeginRead());
  REDRIVE_ASSIGN_OR_RETURN(int64_t version, tx->WebhooksVersion());
  REDRIVE_ASSIGN_OR_RETURN(auto all, tx->ListWebhooks());
  Offer(Snapshot(all, version));
  return Status::Ok();
}

}  // namespace redrive::engine
