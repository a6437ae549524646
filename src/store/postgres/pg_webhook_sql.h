// redrive.webhooks and redrive.webhook_deliveries: their SQL, row mapping
// and the store operations on them, as free functions over a PgConnection
// shared by the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/webhook.h"
#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres::webhook_sql {

// Reads. With `lock` (in a write transaction) the row is locked FOR UPDATE.
Result<std::vector<Webhook>> ListWebhooks(PgConnection& conn);
Result<Webhook> GetWebhook(PgConnection& conn, const std::string& id, bool lock);
Result<std::vector<WebhookDelivery>> ListDeliveries(PgConnection& conn, const DeliveryFilter& f);
Result<WebhookDelivery> GetDelivery(PgConnection& conn, const std::string& id, bool lock);
Result<std::optional<Instant>> NextDeliveryDue(PgConnection& conn);
Result<int64_t> WebhooksVersion(PgConnection& conn);

// Writes (inside a write transaction).
// CONFLICT when the store already holds `max_webhooks` webhooks.
Status InsertWebhook(PgConnection& conn, const Webhook& w, size_t max_webhooks);
Status UpdateWebhook(PgConnection& conn, const Webhook& w);
Status DeleteWebhook(PgConnection& conn, const std::string& id);
Status InsertDelivery(PgConnection& conn, const WebhookDelivery& d);
Status UpdateDelivery(PgConnection& conn, const WebhookDelivery& d);
// Locked FOR UPDATE SKIP LOCKED: two nodes never reserve the same delivery.
Result<std::vector<WebhookDelivery>> SelectDueDeliveries(PgConnection& conn, Instant now,
                                                         int limit);
Result<long long> DeleteFinishedDeliveries(PgConnection& conn, Instant before, int limit);

}  // namespace redrive::store::postgres::webhook_sql
