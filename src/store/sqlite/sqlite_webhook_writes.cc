// SqliteWriteTx's webhook and throughput operations: thin forwards to
// webhook_sql and throughput_sql.
#include "store/sqlite/sqlite_write_tx.h"
#include "store/sqlite/throughput_sql.h"
#include "store/sqlite/webhook_sql.h"

namespace redrive::store::sqlite {

Status SqliteWriteTx::InsertWebhook(const Webhook& webhook, size_t max_webhooks) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return webhook_sql::InsertWebhook(conn(), webhook, max_webhooks);
}

Status SqliteWriteTx::UpdateWebhook(const Webhook& webhook) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return webhook_sql::UpdateWebhook(conn(), webhook);
}

Status SqliteWriteTx::DeleteWebhook(const std::string& id) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return webhook_sql::DeleteWebhook(conn(), id);
}

Status SqliteWriteTx::InsertDelivery(const WebhookDelivery& delivery) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return webhook_sql::InsertDelivery(conn(), delivery);
}

Status SqliteWriteTx::UpdateDelivery(const WebhookDelivery& delivery) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return webhook_sql::UpdateDelivery(conn(), delivery);
}

Result<std::vector<WebhookDelivery>> SqliteWriteTx::SelectDueDeliveries(Instant now, int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return webhook_sql::SelectDueDeliveries(conn(), now, limit);
}

Result<long long> SqliteWriteTx::DeleteFinishedDeliveries(Instant before, int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return webhook_sql::DeleteFinishedDeliveries(conn(), before, limit);
}

Status SqliteWriteTx::RecordThroughput(const ThroughputSample& sample) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return throughput_sql::RecordThroughput(conn(), sample);
}

Result<long long> SqliteWriteTx::DeleteThroughputBefore(Instant before) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return throughput_sql::DeleteThroughputBefore(conn(), before);
}

Result<long long> SqliteWriteTx::DeleteHourlyThroughputBefore(Instant before) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return throughput_sql::DeleteHourlyBefore(conn(), before);
}

}  // namespace redrive::store::sqlite
