// The durable outbox: turns the webhook events a request caused into
// webhook_deliveries rows, inside that request's savepoint of the group
// commit. The state change and its deliveries commit (or roll back) together,
// so a crash between the change and the POST loses nothing.
#pragma once

#include "engine/tx_context.h"
#include "store/store.h"

namespace redrive::engine {

// Writes one pending delivery, due now, per (event of ctx.webhook_events,
// subscribed enabled webhook of ctx.webhooks) and clears the events.
// REQUIRES: ctx.webhooks is non-null when events are present.
Status WriteOutbox(store::WriteTx& tx, TxContext& ctx);

}  // namespace redrive::engine
