// Which enabled webhooks want which events, as an immutable snapshot the
// outbox (outbox.h) takes once per batch and consults for every write. With no
// enabled webhook the snapshot is empty and a write costs one pointer test
// (the outbox keeps no snapshot), so the job hot path pays nothing for the
// feature.
//
// The snapshot is re-read (Refresh) after every webhook create/update/delete
// commit, before that request is answered (so requests after the answer see
// the change), when a webhook disables itself, and periodically by the
// dispatcher (so several nodes on one database converge).
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
  std::vector<Webhook> webhooks;  // enabled webhooks only

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
  // Replaces the snapshot with the enabled webhooks among `all`.
  void Set(const std::vector<Webhook>& all);
  // Reads every webhook on a read snapshot and Set()s them, unless a Set()
  // happened meanwhile (that one saw a newer committed state). Refreshes
  // run one at a time, so of two concurrent ones the later read is set
  // last: a refresh that starts after a commit leaves a snapshot at least as
  // new as that commit.
  Status Refresh(store::Store& store);

 private:
  std::mutex refresh_mu_;  // held across a Refresh's read and set
  mutable std::mutex mu_;
  std::shared_ptr<const WebhookSubscriptions> current_;
  uint64_t generation_ = 0;
};

}  // namespace redrive::engine
