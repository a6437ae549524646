// The webhooks and webhook_deliveries tables: their SQL, row mapping and the
// store operations on them, as free functions over a Connection so the read
// transaction, the write transaction and the tests share them.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/webhook.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace redrive::store::sqlite::webhook_sql {

// Reads.
Result<std::vector<Webhook>> ListWebhooks(Connection& conn);
Result<Webhook> GetWebhook(Connection& conn, const std::string& id);
Result<std::vector<WebhookDelivery>> ListDeliveries(Connection& conn, const DeliveryFilter& f);
Result<WebhookDelivery> GetDelivery(Connection& conn, const std::string& id);
Result<std::optional<Instant>> NextDeliveryDue(Connection& conn);
Result<int64_t> WebhooksVersion(Connection& conn);

// Writes (inside a write transaction).
// CONFLICT when the store already holds `max_webhooks` webhooks.
Status InsertWebhook(Connection& conn, const Webhook& w, size_t max_webhooks);
Status UpdateWebhook(Connection& conn, const Webhook& w);
Status DeleteWebhook(Connection& conn, const std::string& id);
Status InsertDelivery(Connection& conn, const WebhookDelivery& d);
Status UpdateDelivery(Connection& conn, const WebhookDelivery& d);
Result<std::vector<WebhookDelivery>> SelectDueDeliveries(Connection& conn, Instant now, int limit);
Result<long long> DeleteFinishedDeliveries(Connection& conn, Instant before, int limit);

}  // namespace redrive::store::sqlite::webhook_sql
