// SqliteWriteTx's webhook operations: thin forwards to webhook_sql.
#include "store/sqlite/sqlite_write_tx.h"
#include "store/sqlite/webhook_sql.h"

namespace redrive::store::sqlite {

Status SqliteWriteTx::InsertWebhook(const Webhook& webhook) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return webhook_sql::InsertWebhook(conn(), webhook);
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

}  // namespace redrive::store::sqlite
