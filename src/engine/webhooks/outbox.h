// The durable outbox: the write hook that turns what a request wrote into
// webhook_deliveries rows, inside that request's savepoint of the group
// commit. The state change and its deliveries commit (or roll back) together,
// so a crash between the change and the POST loses nothing.
//
// Which webhook events a write emits is core's outcome table; which webhooks
// get them is one SubscriptionCache snapshot per transaction, kept in its
// TxContext. With no enabled webhook the snapshot is left unset and a write
// costs one pointer test.
//
// Thread-safety: thread-safe; it keeps no state but the cache it reads.
#pragma once

#include <memory>

#include "core/webhook_event.h"
#include "engine/tx_context.h"
#include "engine/webhooks/subscriptions.h"
#include "engine/write_hook.h"
#include "store/store.h"

namespace redrive::engine {

class WebhookOutbox final : public WriteHook {
 public:
  // `subscriptions` must outlive this.
  explicit WebhookOutbox(SubscriptionCache& subscriptions) : subscriptions_(subscriptions) {}

  // Takes the cached subscriptions, or the webhook list read in `tx` when
  // the store's webhooks version says the cache is stale (a webhook changed
  // on another node, or in a transaction not yet refreshed here).
  Status BeginTransaction(store::WriteTx& tx, TxContext& ctx) override;
  // Writes one pending delivery, due now, per (emitted event, enabled
  // webhook subscribed to it); and, when the job names a completion_webhook
  // and the write ends it (core's kCompletionEvents), one delivery of the
  // built-in completion webhook to that URL.
  Status OnJob(store::WriteTx& tx, TxContext& ctx, const JobWrite& write) override;
  Status OnQueue(store::WriteTx& tx, TxContext& ctx, const QueueWrite& write) override;
  Status OnWorker(store::WriteTx& tx, TxContext& ctx, const WorkerWrite& write) override;
  // schedule.triggered.
  Status OnSchedule(store::WriteTx& tx, TxContext& ctx, const ScheduleWrite& write) override;
  Status OnWorkflow(store::WriteTx& tx, TxContext& ctx, const WorkflowWrite& write) override;
  // dlq.autoredrive.
  Status OnAutoredrive(store::WriteTx& tx, TxContext& ctx, const AutoredriveWrite& write) override;

 private:
  static Status Write(store::WriteTx& tx, TxContext& ctx, const WebhookEvent& event);
  static Status WriteCompletion(store::WriteTx& tx, TxContext& ctx, const JobWrite& write);

  SubscriptionCache& subscriptions_;
};

}  // namespace redrive::engine
