#include "store/sqlite/webhook_sql.h"

#include <string>

#include "core/comma_list.h"
#include "core/limits.h"
#include "core/webhook.h"
#include "store/sqlite/query_util.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::webhook_sql {
namespace {

#define REDRIVE_WEBHOOK_COLUMNS                                                             \
  "id, name, url, events, secret, enabled, format, consecutive_failures, disabled_reason, " \
  "created_at, updated_at, last_delivery_at, signature_format"
#define REDRIVE_DELIVERY_COLUMNS                                               \
  "id, webhook_id, event_id, event, body, status, attempts, next_attempt_at, " \
  "last_status_code, last_error, created_at, delivered_at, duration_ms, reservation, url"

constexpr char kListWebhooks[] =
    "SELECT " REDRIVE_WEBHOOK_COLUMNS " FROM webhooks ORDER BY created_at, id";
constexpr char kGetWebhook[] = "SELECT " REDRIVE_WEBHOOK_COLUMNS " FROM webhooks WHERE id = ?1";
constexpr char kInsertWebhook[] =
    "INSERT INTO webhooks (" REDRIVE_WEBHOOK_COLUMNS
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
constexpr char kUpdateWebhook[] =
    "UPDATE webhooks SET name = ?2, url = ?3, events = ?4, secret = ?5, enabled = ?6, "
    "format = ?7, consecutive_failures = ?8, disabled_reason = ?9, created_at = ?10, "
    "updated_at = ?11, last_delivery_at = ?12, signature_format = ?13 WHERE id = ?1";
constexpr char kDeleteWebhookDeliveries[] = "DELETE FROM webhook_deliveries WHERE webhook_id = ?1";
constexpr char kDeleteWebhook[] = "DELETE FROM webhooks WHERE id = ?1";
// The built-in completion webhook (core/webhook.h) is not an operator's: it
// does not count against max_webhooks.
const std::string kCountWebhooks =
    "SELECT count(*) FROM webhooks WHERE id <> '" + std::string(kCompletionWebhookId) + "'";

constexpr char kGetDelivery[] =
    "SELECT " REDRIVE_DELIVERY_COLUMNS " FROM webhook_deliveries WHERE id = ?1";
// Ties on created_at (one commit writes many rows with one `now`) are
// broken by insertion order (rowid; the index carries it), newest first.
constexpr char kListDeliveries[] = "SELECT " REDRIVE_DELIVERY_COLUMNS
                                   " FROM webhook_deliveries WHERE webhook_id = ?1"
                                   " ORDER BY created_at DESC, rowid DESC LIMIT ?2 OFFSET ?3";
constexpr char kListDeliveriesByStatus[] =
    "SELECT " REDRIVE_DELIVERY_COLUMNS
    " FROM webhook_deliveries WHERE webhook_id = ?1"
    " AND status = ?4 ORDER BY created_at DESC, rowid DESC LIMIT ?2 OFFSET ?3";
constexpr char kInsertDelivery[] =
    "INSERT INTO webhook_deliveries (" REDRIVE_DELIVERY_COLUMNS
    ") SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15"
    " WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ?2)";
constexpr char kWebhooksVersion[] = "SELECT version FROM webhooks_version WHERE id = 1";
constexpr char kUpdateDelivery[] =
    "UPDATE webhook_deliveries SET status = ?6, attempts = ?7, next_attempt_at = ?8, "
    "last_status_code = ?9, last_error = ?10, delivered_at = ?12, duration_ms = ?13, "
    "reservation = ?14 WHERE id = ?1";
// Walks webhook_deliveries_due; the join drops rows of disabled webhooks
// (they wait, pending, until the webhook is enabled again).
constexpr char kSelectDue[] = "SELECT " REDRIVE_DELIVERY_COLUMNS
                              " FROM webhook_deliveries AS d"
                              " WHERE d.status = 'pending' AND d.next_attempt_at <= ?1"
                              " AND (SELECT enabled FROM webhooks WHERE id = d.webhook_id) = 1"
                              " ORDER BY d.next_attempt_at LIMIT ?2";
constexpr char kNextDue[] =
    "SELECT d.next_attempt_at FROM webhook_deliveries AS d WHERE d.status = 'pending'"
    " AND (SELECT enabled FROM webhooks WHERE id = d.webhook_id) = 1"
    " ORDER BY d.next_attempt_at LIMIT 1";
constexpr char kDeleteFinished[] =
    "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries"
    " WHERE status <> 'pending' AND created_at < ?1 ORDER BY created_at LIMIT ?2)";

Webhook ReadWebhook(const Statement& s) {
  Webhook w;
  w.id = s.String(0);
  w.name = s.String(1);
  w.url = s.String(2);
  w.events = SplitCommaList(s.Text(3));
  w.secret = s.String(4);
  w.enabled = s.Int(5) != 0;
  w.format = ParseWebhookFormat(s.Text(6)).value_or(WebhookFormat::kJson);
  w.consecutive_failures = s.Int(7);
  w.disabled_reason = s.OptString(8);
  w.created_at = s.Time(9);
  w.updated_at = s.Time(10);
  w.last_delivery_at = s.OptTime(11);
  w.signature_format = ParseSignatureFormat(s.Text(12)).value_or(SignatureFormat::kRedrive);
  return w;
}

// `events` is the joined event list (bound without a copy: kept alive by the caller).
void BindWebhook(Statement& s, const Webhook& w, const std::string& events) {
  s.Bind(1, w.id);
  s.Bind(2, w.name);
  s.Bind(3, w.url);
  s.Bind(4, events);
  s.Bind(5, w.secret);
  s.Bind(6, w.enabled ? 1 : 0);
  s.Bind(7, WebhookFormatName(w.format));
  s.Bind(8, w.consecutive_failures);
  s.Bind(9, w.disabled_reason);
  s.Bind(10, w.created_at);
  s.Bind(11, w.updated_at);
  s.Bind(12, w.last_delivery_at);
  s.Bind(13, SignatureFormatName(w.signature_format));
}

WebhookDelivery ReadDelivery(const Statement& s) {
  WebhookDelivery d;
  d.id = s.String(0);
  d.webhook_id = s.String(1);
  d.event_id = s.String(2);
  d.event = s.String(3);
  d.body = s.String(4);
  d.status = ParseDeliveryStatus(s.Text(5)).value_or(DeliveryStatus::kPending);
  d.attempts = s.Int(6);
  d.next_attempt_at = s.Time(7);
  if (!s.IsNull(8)) d.last_status_code = s.Int(8);
  d.last_error = s.OptString(9);
  d.created_at = s.Time(10);
  d.delivered_at = s.OptTime(11);
  if (!s.IsNull(12)) d.duration_ms = s.Int64(12);
  d.reservation = s.OptString(13);
  d.url = s.OptString(14);
  return d;
}

void BindDelivery(Statement& s, const WebhookDelivery& d) {
  s.Bind(1, d.id);
  s.Bind(2, d.webhook_id);
  s.Bind(3, d.event_id);
  s.Bind(4, d.event);
  s.Bind(5, d.body);
  s.Bind(6, DeliveryStatusName(d.status));
  s.Bind(7, d.attempts);
  s.Bind(8, d.next_attempt_at);
  s.Bind(9, d.last_status_code);
  s.Bind(10, d.last_error);
  s.Bind(11, d.created_at);
  s.Bind(12, d.delivered_at);
  if (d.duration_ms) {
    s.Bind(13, static_cast<int64_t>(*d.duration_ms));
  } else {
    s.BindNull(13);
  }
  s.Bind(14, d.reservation);
}

Status RunExpectingOneRow(Statement& stmt, const std::string& what) {
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  if (stmt.Changes() == 0) return Status::NotFound(what + " not found");
  return Status::Ok();
}

}  // namespace

Result<std::vector<Webhook>> ListWebhooks(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kListWebhooks));
  return CollectRows<Webhook>(stmt, ReadWebhook);
}

Result<Webhook> GetWebhook(Connection& conn, const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGetWebhook));
  stmt.Bind(1, id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::NotFound("webhook " + id + " not found");
  return ReadWebhook(stmt);
}

Result<std::vector<WebhookDelivery>> ListDeliveries(Connection& conn, const DeliveryFilter& f) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt,
                           conn.Prepare(f.status ? kListDeliveriesByStatus : kListDeliveries));
  stmt.Bind(1, f.webhook_id);
  stmt.Bind(2, f.limit);
  stmt.Bind(3, f.offset);
  if (f.status) stmt.Bind(4, DeliveryStatusName(*f.status));
  return CollectRows<WebhookDelivery>(stmt, ReadDelivery);
}

Result<WebhookDelivery> GetDelivery(Connection& conn, const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGetDelivery));
  stmt.Bind(1, id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::NotFound("delivery " + id + " not found");
  return ReadDelivery(stmt);
}

Result<int64_t> WebhooksVersion(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kWebhooksVersion));
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Internal("webhooks_version has no row");
  return stmt.Int64(0);
}

Result<std::optional<Instant>> NextDeliveryDue(Connection& conn) {
  return QueryOptTime(conn, kNextDue, [](Statement&) {});
}

Status InsertWebhook(Connection& conn, const Webhook& w, size_t max_webhooks) {
  {
    // One writer at a time: nobody creates a webhook between the count and
    // the insert.
    REDRIVE_ASSIGN_OR_RETURN(Statement count, conn.Prepare(kCountWebhooks));
    REDRIVE_ASSIGN_OR_RETURN(bool row, count.Step());
    if (row && static_cast<uint64_t>(count.Int64(0)) >= max_webhooks) {
      return Status::Conflict(WebhookLimitMessage(max_webhooks));
    }
  }
  const std::string events = JoinCommaList(w.events);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsertWebhook));
  BindWebhook(stmt, w, events);
  return stmt.Run();
}

Status UpdateWebhook(Connection& conn, const Webhook& w) {
  const std::string events = JoinCommaList(w.events);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kUpdateWebhook));
  BindWebhook(stmt, w, events);
  return RunExpectingOneRow(stmt, "webhook " + w.id);
}

Status DeleteWebhook(Connection& conn, const std::string& id) {
  {
    // Explicit, not left to the foreign key's cascade: the cost is visible here.
    REDRIVE_ASSIGN_OR_RETURN(Statement del, conn.Prepare(kDeleteWebhookDeliveries));
    del.Bind(1, id);
    REDRIVE_RETURN_IF_ERROR(del.Run());
  }
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteWebhook));
  stmt.Bind(1, id);
  return RunExpectingOneRow(stmt, "webhook " + id);
}

Status InsertDelivery(Connection& conn, const WebhookDelivery& d) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsertDelivery));
  BindDelivery(stmt, d);
  stmt.Bind(15, d.url);  // fixed at insert: UpdateDelivery leaves it
  return stmt.Run();
}

Status UpdateDelivery(Connection& conn, const WebhookDelivery& d) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kUpdateDelivery));
  BindDelivery(stmt, d);
  return RunExpectingOneRow(stmt, "delivery " + d.id);
}

Result<std::vector<WebhookDelivery>> SelectDueDeliveries(Connection& conn, Instant now, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSelectDue));
  stmt.Bind(1, now);
  stmt.Bind(2, limit);
  return CollectRows<WebhookDelivery>(stmt, ReadDelivery);
}

Result<long long> DeleteFinishedDeliveries(Connection& conn, Instant before, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteFinished));
  stmt.Bind(1, before);
  stmt.Bind(2, limit);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

}  // namespace redrive::store::sqlite::webhook_sql
