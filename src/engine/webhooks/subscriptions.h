// Which enabled webhooks want which events, as an immutable snapshot the
// outbox (outbox.h) takes once per batch and consults for every write. With no
// enabled webhook the snapshot is empty and a write costs one pointer test
// (the outbox keeps no snapshot), so the job hot path pays nothing for the
// feature.
//
// Every snapshot carries the store's webhooks version it was read at
// (store.h, WebhooksVersion). Each write transaction reads that version
// (one cheap row) and, when it differs from the cached snapshot's, reads the
// list in the same transaction (ForTransaction): a webhook created, changed
// or deleted on any node is seen by every transaction that starts after that
// commit, on every node. The snapshot is also re-read (Refresh) after every
// webhook create/update/delete commit here and periodically by the
// dispatcher, so the next transactions rarely need the list. Of two
// snapshots the one of the higher version wins, whatever order they arrive
// in.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/webhook.h"
#include "store/store.h"

namespace redrive::engine {

struct WebhookSubscriptions {
  std::vector<Webhook> webhooks;  // enabled webhooks only, the built-in one aside
  int64_t version = 0;            // the store's WebhooksVersion it reflects
  // The built-in completion webhook (core/webhook.h) exists, enabled or not.
  bool completion_webhook = false;

  bool empty() const { return webhooks.empty(); }
  // Some webhook wants `event` (core's WebhookWants).
  bool Wants(std::string_view event) const;
};

// Thread-safe holder of the current snapshot.
class SubscriptionCache {
 public:
  SubscriptionCache();

  // Never null.
  std::shared_ptr<const WebhookSubscriptions> Get() const;
  // Replaces the snapshot with the enabled webhooks among `all` (tests).
  void Set(const std::vector<Webhook>& all, int64_t version = 0);
  // The subscriptions as of `tx`: the cached snapshot when the store's
  // version is the cached one, else the list read in `tx` (which is cached,
  // unless a newer one arrived meanwhile). Never null.
  Result<std::shared_ptr<const WebhookSubscriptions>> ForTransaction(store::ReadTx& tx);
  // Reads the version and every webhook on one read snapshot and caches
  // them, unless a newer snapshot is cached.
  Status Refresh(store::Store& store);

 private:
  void Offer(std::shared_ptr<const WebhookSubscriptions> snapshot);

  mutable std::mutex mu_;
  std::shared_ptr<const WebhookSubscriptions> current_;
};

}  // namespace redrive::engine
