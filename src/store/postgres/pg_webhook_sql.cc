#include "store/postgres/pg_webhook_sql.h"

#include <string>

#include "core/comma_list.h"
#include "core/limits.h"
#include "core/webhook.h"
#include "store/postgres/pg_schema.h"

namespace redrive::store::postgres::webhook_sql {
namespace {

#define REDRIVE_PG_WEBHOOK_COLUMNS                                                          \
  "id, name, url, events, secret, enabled, format, consecutive_failures, disabled_reason, " \
  "created_at, updated_at, last_delivery_at, signature_format"
// The fixed fields, the mutable ones (UpdateDelivery), created_at, url.
#define REDRIVE_PG_DELIVERY_COLUMNS                                            \
  "id, webhook_id, event_id, event, body, status, attempts, next_attempt_at, " \
  "last_status_code, last_error, delivered_at, duration_ms, reservation, created_at, url"

constexpr char kListWebhooks[] =
    "SELECT " REDRIVE_PG_WEBHOOK_COLUMNS " FROM redrive.webhooks ORDER BY created_at, id";
constexpr char kGetWebhook[] =
    "SELECT " REDRIVE_PG_WEBHOOK_COLUMNS " FROM redrive.webhooks WHERE id = $1";
constexpr char kGetWebhookForUpdate[] =
    "SELECT " REDRIVE_PG_WEBHOOK_COLUMNS " FROM redrive.webhooks WHERE id = $1 FOR UPDATE";
constexpr char kInsertWebhook[] =
    "INSERT INTO redrive.webhooks (" REDRIVE_PG_WEBHOOK_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)";
constexpr char kUpdateWebhook[] =
    "UPDATE redrive.webhooks SET name = $2, url = $3, events = $4, secret = $5, enabled = $6, "
    "format = $7, consecutive_failures = $8, disabled_reason = $9, created_at = $10, "
    "updated_at = $11, last_delivery_at = $12, signature_format = $13 WHERE id = $1";
constexpr char kDeleteWebhookDeliveries[] =
    "DELETE FROM redrive.webhook_deliveries WHERE webhook_id = $1";
constexpr char kDeleteWebhook[] = "DELETE FROM redrive.webhooks WHERE id = $1";
const std::string kLockWebhookCreation =
    "SELECT pg_advisory_xact_lock(" + std::to_string(kWebhookCreationLockKey) + ")";
// The built-in completion webhook (core/webhook.h) is not an operator's: it
// does not count against max_webhooks.
const std::string kCountWebhooks =
    "SELECT count(*) FROM redrive.webhooks WHERE id <> '" + std::string(kCompletionWebhookId) + "'";

constexpr char kGetDelivery[] =
    "SELECT " REDRIVE_PG_DELIVERY_COLUMNS " FROM redrive.webhook_deliveries WHERE id = $1";
constexpr char kGetDeliveryForUpdate[] = "SELECT " REDRIVE_PG_DELIVERY_COLUMNS
                                         " FROM redrive.webhook_deliveries WHERE id = $1"
                                         " FOR UPDATE";
// Ties on created_at (one commit writes many rows with one `now`) are
// broken by insertion order (seq), newest first.
constexpr char kListDeliveries[] = "SELECT " REDRIVE_PG_DELIVERY_COLUMNS
                                   " FROM redrive.webhook_deliveries WHERE webhook_id = $1"
                                   " ORDER BY created_at DESC, seq DESC LIMIT $2 OFFSET $3";
constexpr char kListDeliveriesByStatus[] =
    "SELECT " REDRIVE_PG_DELIVERY_COLUMNS
    " FROM redrive.webhook_deliveries WHERE webhook_id = $1 AND status = $4"
    " ORDER BY created_at DESC, seq DESC LIMIT $2 OFFSET $3";
constexpr char kInsertDelivery[] =
    "INSERT INTO redrive.webhook_deliveries (" REDRIVE_PG_DELIVERY_COLUMNS
    ") SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::integer,"
    " $8::bigint, $9::integer, $10::text, $11::bigint, $12::bigint, $13::text, $14::bigint,"
    " $15::text"
    // A webhook deleted meanwhile is seen gone (nothing is written); one
    // being deleted waits for this transaction and then cascades to it.
    " WHERE EXISTS (SELECT 1 FROM redrive.webhooks WHERE id = $2 FOR KEY SHARE)";
constexpr char kWebhooksVersion[] = "SELECT version FROM redrive.webhooks_version WHERE id = 1";
// $1 id, then the mutable fields (BindMutable).
constexpr char kUpdateDelivery[] =
    "UPDATE redrive.webhook_deliveries SET status = $2, attempts = $3, next_attempt_at = $4, "
    "last_status_code = $5, last_error = $6, delivered_at = $7, duration_ms = $8, "
    "reservation = $9 WHERE id = $1";
// Walks webhook_deliveries_due; rows of disabled webhooks wait, pending.
constexpr char kSelectDue[] =
    "SELECT d.id, d.webhook_id, d.event_id, d.event, d.body, d.status, d.attempts,"
    " d.next_attempt_at, d.last_status_code, d.last_error, d.delivered_at, d.duration_ms,"
    " d.reservation, d.created_at, d.url FROM redrive.webhook_deliveries AS d"
    " JOIN redrive.webhooks AS w ON w.id = d.webhook_id AND w.enabled"
    " WHERE d.status = 'pending' AND d.next_attempt_at <= $1"
    " ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED";
constexpr char kNextDue[] =
    "SELECT d.next_attempt_at FROM redrive.webhook_deliveries AS d"
    " JOIN redrive.webhooks AS w ON w.id = d.webhook_id AND w.enabled"
    " WHERE d.status = 'pending' ORDER BY d.next_attempt_at LIMIT 1";
constexpr char kDeleteFinished[] =
    "DELETE FROM redrive.webhook_deliveries WHERE id IN (SELECT id FROM"
    " redrive.webhook_deliveries WHERE status <> 'pending' AND created_at < $1"
    " ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)";

Webhook ReadWebhook(const PgResult& r, int row) {
  Webhook w;
  w.id = r.String(row, 0);
  w.name = r.String(row, 1);
  w.url = r.String(row, 2);
  w.events = SplitCommaList(r.Text(row, 3));
  w.secret = r.String(row, 4);
  w.enabled = r.Bool(row, 5);
  w.format = ParseWebhookFormat(r.Text(row, 6)).value_or(WebhookFormat::kJson);
  w.consecutive_failures = r.Int(row, 7);
  w.disabled_reason = r.OptString(row, 8);
  w.created_at = r.Time(row, 9);
  w.updated_at = r.Time(row, 10);
  w.last_delivery_at = r.OptTime(row, 11);
  w.signature_format = ParseSignatureFormat(r.Text(row, 12)).value_or(SignatureFormat::kRedrive);
  return w;
}

void BindWebhook(PgParams& p, const Webhook& w) {
  p.AddRef(w.id);
  p.AddRef(w.name);
  p.AddRef(w.url);
  p.Add(JoinCommaList(w.events));
  p.AddRef(w.secret);
  p.Add(w.enabled);
  p.Add(WebhookFormatName(w.format));
  p.Add(w.consecutive_failures);
  p.AddRef(w.disabled_reason);
  p.Add(w.created_at);
  p.Add(w.updated_at);
  p.Add(w.last_delivery_at);
  p.Add(SignatureFormatName(w.signature_format));
}

WebhookDelivery ReadDelivery(const PgResult& r, int row) {
  WebhookDelivery d;
  d.id = r.String(row, 0);
  d.webhook_id = r.String(row, 1);
  d.event_id = r.String(row, 2);
  d.event = r.String(row, 3);
  d.body = r.String(row, 4);
  d.status = ParseDeliveryStatus(r.Text(row, 5)).value_or(DeliveryStatus::kPending);
  d.attempts = r.Int(row, 6);
  d.next_attempt_at = r.Time(row, 7);
  if (!r.IsNull(row, 8)) d.last_status_code = r.Int(row, 8);
  d.last_error = r.OptString(row, 9);
  d.delivered_at = r.OptTime(row, 10);
  if (!r.IsNull(row, 11)) d.duration_ms = r.Int64(row, 11);
  d.reservation = r.OptString(row, 12);
  d.created_at = r.Time(row, 13);
  d.url = r.OptString(row, 14);
  return d;
}

// The fields UpdateDelivery replaces, in column order.
void BindMutable(PgParams& p, const WebhookDelivery& d) {
  p.Add(DeliveryStatusName(d.status));
  p.Add(d.attempts);
  p.Add(d.next_attempt_at);
  if (d.last_status_code) {
    p.Add(*d.last_status_code);
  } else {
    p.AddNull();
  }
  p.AddRef(d.last_error);
  p.Add(d.delivered_at);
  if (d.duration_ms) {
    p.Add(static_cast<int64_t>(*d.duration_ms));
  } else {
    p.AddNull();
  }
  p.AddRef(d.reservation);
}

void BindDelivery(PgParams& p, const WebhookDelivery& d) {
  p.AddRef(d.id);
  p.AddRef(d.webhook_id);
  p.AddRef(d.event_id);
  p.AddRef(d.event);
  p.AddRef(d.body);
  BindMutable(p, d);
  p.Add(d.created_at);
  p.AddRef(d.url);
}

template <typename T, typename ReadFn>
std::vector<T> Rows(const PgResult& r, ReadFn read) {
  std::vector<T> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) out.push_back(read(r, i));
  return out;
}

Status ExpectOneRow(const Result<PgResult>& r, const std::string& what) {
  if (!r.ok()) return r.status();
  if (r->affected() == 0) return Status::NotFound(what + " not found");
  return Status::Ok();
}

}  // namespace

Result<std::vector<Webhook>> ListWebhooks(PgConnection& conn) {
  PgParams p;
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kListWebhooks, p));
  return Rows<Webhook>(r, ReadWebhook);
}

Result<Webhook> GetWebhook(PgConnection& conn, const std::string& id, bool lock) {
  PgParams p;
  p.AddRef(id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r,
                           conn.ExecPrepared(lock ? kGetWebhookForUpdate : kGetWebhook, p));
  if (r.rows() == 0) return Status::NotFound("webhook " + id + " not found");
  return ReadWebhook(r, 0);
}

Result<std::vector<WebhookDelivery>> ListDeliveries(PgConnection& conn, const DeliveryFilter& f) {
  PgParams p;
  p.AddRef(f.webhook_id);
  p.Add(f.limit);
  p.Add(f.offset);
  if (f.status) p.Add(DeliveryStatusName(*f.status));
  REDRIVE_ASSIGN_OR_RETURN(
      PgResult r, conn.ExecPrepared(f.status ? kListDeliveriesByStatus : kListDeliveries, p));
  return Rows<WebhookDelivery>(r, ReadDelivery);
}

Result<WebhookDelivery> GetDelivery(PgConnection& conn, const std::string& id, bool lock) {
  PgParams p;
  p.AddRef(id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r,
                           conn.ExecPrepared(lock ? kGetDeliveryForUpdate : kGetDelivery, p));
  if (r.rows() == 0) return Status::NotFound("delivery " + id + " not found");
  return ReadDelivery(r, 0);
}

Result<int64_t> WebhooksVersion(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kWebhooksVersion, {}));
  if (r.rows() != 1) return Status::Internal("redrive.webhooks_version has no row");
  return r.Int64(0, 0);
}

Result<std::optional<Instant>> NextDeliveryDue(PgConnection& conn) {
  PgParams p;
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kNextDue, p));
  if (r.rows() == 0) return std::optional<Instant>();
  return r.OptTime(0, 0);
}

Status InsertWebhook(PgConnection& conn, const Webhook& w, size_t max_webhooks) {
  // Creations take turns from here to their commit, so the count (a
  // statement after the lock: a snapshot that sees every earlier creation)
  // is exact across nodes. Rare: an operator creating a webhook.
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kLockWebhookCreation, PgParams()).status());
  REDRIVE_ASSIGN_OR_RETURN(PgResult count, conn.ExecPrepared(kCountWebhooks, PgParams()));
  if (static_cast<uint64_t>(count.Int64(0, 0)) >= max_webhooks) {
    return Status::Conflict(WebhookLimitMessage(max_webhooks));
  }
  PgParams p;
  BindWebhook(p, w);
  return conn.ExecPrepared(kInsertWebhook, p).status();
}

Status UpdateWebhook(PgConnection& conn, const Webhook& w) {
  PgParams p;
  BindWebhook(p, w);
  return ExpectOneRow(conn.ExecPrepared(kUpdateWebhook, p), "webhook " + w.id);
}

Status DeleteWebhook(PgConnection& conn, const std::string& id) {
  PgParams p;
  p.AddRef(id);
  // Explicit, not left to the foreign key's cascade: the cost is visible here.
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kDeleteWebhookDeliveries, p).status());
  return ExpectOneRow(conn.ExecPrepared(kDeleteWebhook, p), "webhook " + id);
}

Status InsertDelivery(PgConnection& conn, const WebhookDelivery& d) {
  PgParams p;
  BindDelivery(p, d);
  return conn.ExecPrepared(kInsertDelivery, p).status();
}

Status UpdateDelivery(PgConnection& conn, const WebhookDelivery& d) {
  PgParams p;
  p.AddRef(d.id);
  BindMutable(p, d);
  return ExpectOneRow(conn.ExecPrepared(kUpdateDelivery, p), "delivery " + d.id);
}

Result<std::vector<WebhookDelivery>> SelectDueDeliveries(PgConnection& conn, Instant now,
                                                         int limit) {
  PgParams p;
  p.Add(now);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kSelectDue, p));
  return Rows<WebhookDelivery>(r, ReadDelivery);
}

Result<long long> DeleteFinishedDeliveries(PgConnection& conn, Instant before, int limit) {
  PgParams p;
  p.Add(before);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteFinished, p));
  return r.affected();
}

}  // namespace redrive::store::postgres::webhook_sql
