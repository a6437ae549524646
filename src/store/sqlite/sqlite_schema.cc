#include "store/sqlite/sqlite_schema.h"

#include <span>

#include "store/sqlite/api_key_sql.h"
#include "store/sqlite/autoredrive_sql.h"
#include "store/sqlite/compact_schema.h"
#include "store/sqlite/operation_sql.h"
#include "store/sqlite/throughput_sql.h"
#include "store/sqlite/token_sql.h"
#include "store/sqlite/workflow_sql.h"

namespace redrive::store::sqlite {
namespace {

// Version 1: the whole model. Times are INTEGER microseconds since the Unix
// epoch (UTC). STRICT tables make SQLite enforce column types. The CHECK
// constraints repeat the state machine's invariants (core/transition.h), so a
// bug in a change is refused by the database instead of stored.
constexpr char kSchemaV1[] = R"sql(
CREATE TABLE jobs (
  id                 TEXT PRIMARY KEY,
  queue_name         TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN
                       ('pending','scheduled','processing','completed','deadletter','cancelled')),
  priority           INTEGER NOT NULL CHECK (priority BETWEEN -100 AND 100),
  retry_count        INTEGER NOT NULL CHECK (retry_count >= 0),
  max_retries        INTEGER NOT NULL CHECK (max_retries >= 0),
  timeout_seconds    INTEGER NOT NULL CHECK (timeout_seconds > 0),
  backoff_base_ms    INTEGER NOT NULL CHECK (backoff_base_ms >= 0),
  backoff_max_ms     INTEGER NOT NULL CHECK (backoff_max_ms >= 0),
  backoff_jitter_ms  INTEGER NOT NULL CHECK (backoff_jitter_ms >= 0),
  last_error         TEXT,
  dead_reason        TEXT CHECK (dead_reason IN
                       ('max_retries_exceeded','lease_expired','non_retryable','expired')),
  tags               TEXT NOT NULL DEFAULT '{}',  -- JSON object; job_tags indexes it
  idempotency_key    TEXT,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  scheduled_at       INTEGER NOT NULL,
  started_at         INTEGER,
  completed_at       INTEGER,
  expires_at         INTEGER,
  deadlettered_at    INTEGER,
  assigned_worker_id TEXT,
  lease_id           TEXT,
  lease_expires_at   INTEGER,
  attempts           INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  lease_expiries     INTEGER NOT NULL DEFAULT 0 CHECK (lease_expiries >= 0),
  -- A lease exists exactly while the job is processing: each of its three
  -- fields is set in processing and in no other status.
  CHECK ((status = 'processing') = (lease_id IS NOT NULL)),
  CHECK ((status = 'processing') = (lease_expires_at IS NOT NULL)),
  CHECK ((status = 'processing') = (assigned_worker_id IS NOT NULL)),
  CHECK (status <> 'deadletter' OR (deadlettered_at IS NOT NULL AND dead_reason IS NOT NULL))
) STRICT;

-- Server-wide idempotency, for as long as the job exists.
CREATE UNIQUE INDEX jobs_idempotency ON jobs (idempotency_key)
  WHERE idempotency_key IS NOT NULL;

-- Partial indexes: each background query touches only rows in its status, so
-- millions of completed jobs cost the claim, the scheduler, the reaper and
-- the DLQ nothing.
-- Every index costs every state change that touches its columns, so there
-- are no others: a claim's promotion of due jobs and a deregistration's
-- search for held jobs walk jobs_scheduled and jobs_lease (few rows: only
-- due or running jobs) instead of keeping per-queue and per-worker copies.
CREATE INDEX jobs_claim ON jobs (queue_name, priority DESC, created_at)
  WHERE status = 'pending';
CREATE INDEX jobs_scheduled ON jobs (scheduled_at) WHERE status = 'scheduled';
CREATE INDEX jobs_lease ON jobs (lease_expires_at) WHERE status = 'processing';
CREATE INDEX jobs_deadline ON jobs (expires_at)
  WHERE status IN ('pending','scheduled') AND expires_at IS NOT NULL;
CREATE INDEX jobs_dlq_queue ON jobs (queue_name, deadlettered_at) WHERE status = 'deadletter';
CREATE INDEX jobs_dlq ON jobs (deadlettered_at) WHERE status = 'deadletter';

-- Listing and counting (GROUP BY status is a covering scan of this index).
CREATE INDEX jobs_listing ON jobs (queue_name, status, created_at, id);
-- Newest-first listing without a status filter. Their columns never change
-- after insert, so they cost nothing on the hot path of state changes.
CREATE INDEX jobs_queue_created ON jobs (queue_name, created_at, id);
CREATE INDEX jobs_created ON jobs (created_at, id);
-- Retention sweeps terminal jobs of one queue and status by age.
CREATE INDEX jobs_retention ON jobs (queue_name, status, completed_at)
  WHERE completed_at IS NOT NULL;

-- Payload and result apart from the job row: SQLite rewrites a whole row on
-- every UPDATE, and a job row changes at every transition, so a 1 MiB payload
-- kept inline would be rewritten (and logged to the WAL) at each claim,
-- heartbeat and completion. Here it is written once, read by key.
CREATE TABLE job_payloads (
  job_id  TEXT PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  payload TEXT NOT NULL,
  result  TEXT
) STRICT;

-- One row per tag, so `tag=k=v` and `tag=k` filters are index lookups.
CREATE TABLE job_tags (
  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (job_id, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX job_tags_kv ON job_tags (key, value, job_id);

-- id is unique by construction (UUIDv7) and never looked up, so it has no
-- index of its own: each entry costs one table and one index insert.
CREATE TABLE job_history (
  id         TEXT NOT NULL,
  job_id     TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  event_type TEXT NOT NULL,
  worker_id  TEXT,
  details    TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX job_history_job ON job_history (job_id, created_at);

CREATE TABLE queues (
  queue_name             TEXT PRIMARY KEY,
  max_retries            INTEGER NOT NULL CHECK (max_retries >= 0),
  default_timeout        INTEGER NOT NULL CHECK (default_timeout > 0),
  enabled                INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  paused                 INTEGER NOT NULL CHECK (paused IN (0, 1)),
  paused_reason          TEXT,
  backoff_base_ms        INTEGER NOT NULL,
  backoff_max_ms         INTEGER NOT NULL,
  backoff_jitter_ms      INTEGER NOT NULL,
  retention_completed_s  INTEGER,  -- NULL: keep forever
  retention_deadletter_s INTEGER,
  retention_cancelled_s  INTEGER,
  created_at             INTEGER NOT NULL,
  updated_at             INTEGER NOT NULL
) STRICT;

CREATE TABLE workers (
  id                TEXT PRIMARY KEY,
  queue_name        TEXT NOT NULL,
  hostname          TEXT NOT NULL,
  worker_type       TEXT,
  max_concurrency   INTEGER NOT NULL,
  metadata          TEXT NOT NULL DEFAULT '{}',
  version           TEXT,
  status            TEXT NOT NULL,
  current_jobs      INTEGER NOT NULL,
  registered_at     INTEGER NOT NULL,
  last_heartbeat_at INTEGER NOT NULL,
  deregistered_at   INTEGER
) STRICT;
)sql";

// Version 2: outgoing webhooks and their durable outbox. A state change and
// the delivery rows of the events it causes are written in one transaction,
// so a crash between the change and the POST loses no event.
constexpr char kSchemaV2[] = R"sql(
CREATE TABLE webhooks (
  id                   TEXT PRIMARY KEY,
  name                 TEXT NOT NULL,
  url                  TEXT NOT NULL,
  events               TEXT NOT NULL,  -- comma-separated event names
  secret               TEXT NOT NULL,
  enabled              INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  format               TEXT NOT NULL CHECK (format IN ('json','slack')),
  consecutive_failures INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  disabled_reason      TEXT,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  last_delivery_at     INTEGER
) STRICT;

CREATE TABLE webhook_deliveries (
  id               TEXT PRIMARY KEY,
  webhook_id       TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id         TEXT NOT NULL,
  event            TEXT NOT NULL,
  body             TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending','delivered','failed')),
  attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at  INTEGER NOT NULL,
  last_status_code INTEGER,
  last_error       TEXT,
  created_at       INTEGER NOT NULL,
  delivered_at     INTEGER,
  duration_ms      INTEGER,
  CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
) STRICT;

-- The dispatcher's selection: only pending rows, by due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending';
-- A webhook's delivery log, newest first (and its deletion).
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at);
-- Retention of finished deliveries by age.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at)
  WHERE status <> 'pending';
)sql";

// Version 3: several nodes on one file. duty_leases holds which node leads
// each background duty and until when (sqlite_leadership.h); a delivery's
// reservation is the token of the attempt that holds it, so an attempt whose
// reservation lapsed and was taken again records nothing.
constexpr char kSchemaV3[] = R"sql(
CREATE TABLE duty_leases (
  duty       TEXT PRIMARY KEY,
  node_id    TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;

ALTER TABLE webhook_deliveries ADD COLUMN reservation TEXT;
)sql";

// Version 4: webhooks_version, moved by the database whenever a webhook's
// subscription changes, so every node (process) sharing the file sees in one
// read that its cached subscriptions are stale (WebhooksVersion).
constexpr char kSchemaV4[] = R"sql(
CREATE TABLE webhooks_version (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
) STRICT;
INSERT INTO webhooks_version (id, version) VALUES (1, 1);

CREATE TRIGGER webhooks_version_on_insert AFTER INSERT ON webhooks
BEGIN UPDATE webhooks_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER webhooks_version_on_delete AFTER DELETE ON webhooks
BEGIN UPDATE webhooks_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER webhooks_version_on_update AFTER UPDATE ON webhooks
WHEN OLD.name IS NOT NEW.name OR OLD.url IS NOT NEW.url OR OLD.events IS NOT NEW.events
  OR OLD.secret IS NOT NEW.secret OR OLD.enabled IS NOT NEW.enabled
  OR OLD.format IS NOT NEW.format
BEGIN UPDATE webhooks_version SET version = version + 1 WHERE id = 1; END;
)sql";

// Version 5: which node made each history entry (HistoryEntry::node_id;
// NULL for entries written before).
constexpr char kSchemaV5[] = R"sql(
ALTER TABLE job_history ADD COLUMN node_id TEXT;
)sql";

// Version 6: the cluster's throughput history (RecordThroughput): each
// node's job counts per sampling interval (`at`, its end) and queue, summed
// over the nodes when read and pruned by age. The key leads with `at`, so
// the read and the pruning walk it by range.
constexpr char kSchemaV6[] = R"sql(
CREATE TABLE throughput_samples (
  at           INTEGER NOT NULL,
  node_id      TEXT NOT NULL,
  queue_name   TEXT NOT NULL,
  enqueued     INTEGER NOT NULL CHECK (enqueued >= 0),
  completed    INTEGER NOT NULL CHECK (completed >= 0),
  failed       INTEGER NOT NULL CHECK (failed >= 0),
  deadlettered INTEGER NOT NULL CHECK (deadlettered >= 0),
  PRIMARY KEY (at, node_id, queue_name)
) STRICT, WITHOUT ROWID;
)sql";

// Version 7: where a queue's throttled redrives have got to
// (QueueConfig::redrive_until), so the next one queues behind them.
constexpr char kSchemaV7[] = R"sql(
ALTER TABLE queues ADD COLUMN redrive_until INTEGER;
)sql";

// Version 8: crashes, quarantine and snoozes (core/job.h). A job counts the
// attempts that lost their lease (crash_count) against its crash_limit and
// the snoozes it took against max_snoozes; queues hold the defaults. The new
// status `quarantined` needs the CHECK of jobs.status widened. SQLite cannot
// alter a CHECK, and rebuilding jobs would cascade-delete its payloads,
// tags and history (foreign keys are on), so the stored CREATE TABLE text
// is edited in place — the documented way for changes that leave every
// stored row valid (https://sqlite.org/lang_altertable.html, section 8). The
// ALTERs run first: they locate the end of the CREATE text from the parsed
// schema, which the edit would make stale; RESET then reloads this
// connection's schema, and the ALTERs' schema-cookie change makes every other
// connection reload it.
constexpr char kSchemaV8[] = R"sql(
ALTER TABLE jobs ADD COLUMN crash_count INTEGER NOT NULL DEFAULT 0 CHECK (crash_count >= 0);
ALTER TABLE jobs ADD COLUMN crash_limit INTEGER NOT NULL DEFAULT 3 CHECK (crash_limit >= 0);
ALTER TABLE jobs ADD COLUMN snooze_count INTEGER NOT NULL DEFAULT 0 CHECK (snooze_count >= 0);
ALTER TABLE jobs ADD COLUMN max_snoozes INTEGER NOT NULL DEFAULT 25 CHECK (max_snoozes >= 0);
ALTER TABLE queues ADD COLUMN crash_limit INTEGER NOT NULL DEFAULT 3 CHECK (crash_limit >= 0);
ALTER TABLE queues ADD COLUMN max_snoozes INTEGER NOT NULL DEFAULT 25 CHECK (max_snoozes >= 0);
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, '''deadletter'',''cancelled'')',
                     '''deadletter'',''cancelled'',''quarantined'')')
 WHERE type = 'table' AND name = 'jobs';
PRAGMA writable_schema = RESET;
)sql";

// Version 9: Spooled-compatible signature headers, per webhook (Webhook::signature_format).
constexpr char kSchemaV9[] = R"sql(
ALTER TABLE webhooks ADD COLUMN signature_format TEXT NOT NULL DEFAULT 'redrive'
  CHECK (signature_format IN ('redrive','spooled'));
)sql";

// Version 10: the operator audit log and the Idempotency-Key records of
// operator routes (core/audit.h). An entry's targets are rows of their own,
// so "what happened to this job?" is an index lookup; entries are read
// newest first and pruned by age, both by the (at, id) index.
constexpr char kSchemaV10[] = R"sql(
CREATE TABLE audit_log (
  id             TEXT PRIMARY KEY,
  at             INTEGER NOT NULL,
  actor          TEXT NOT NULL,
  role           TEXT NOT NULL,
  client_address TEXT NOT NULL,
  method         TEXT NOT NULL,
  route          TEXT NOT NULL,
  action         TEXT NOT NULL,
  selector       TEXT,
  count          INTEGER,
  status         INTEGER NOT NULL CHECK (status BETWEEN 100 AND 599),
  request_id     TEXT NOT NULL,
  reason         TEXT
) STRICT;
CREATE INDEX audit_log_at ON audit_log (at, id);
CREATE TABLE audit_targets (
  entry_id TEXT NOT NULL REFERENCES audit_log (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  target   TEXT NOT NULL,
  PRIMARY KEY (entry_id, position)
) STRICT, WITHOUT ROWID;
CREATE INDEX audit_targets_target ON audit_targets (target, entry_id);
CREATE TABLE operator_requests (
  scope                 TEXT NOT NULL,
  key                   TEXT NOT NULL,
  fingerprint           TEXT NOT NULL,
  created_at            INTEGER NOT NULL,
  expires_at            INTEGER NOT NULL,
  response_status       INTEGER,
  response_content_type TEXT NOT NULL DEFAULT '',
  response_headers      TEXT NOT NULL DEFAULT '',
  response_body         TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (scope, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX operator_requests_expiry ON operator_requests (expires_at);
)sql";

// Version 11: schedules (cron jobs) and the history of their runs. The due
// selection walks schedules_due (active schedules by next_run_at only), so
// neither start-up nor a tick scans every schedule; a schedule's runs are
// read newest first through schedule_runs_by_schedule.
constexpr char kSchemaV11[] = R"sql(
CREATE TABLE schedules (
  id                TEXT PRIMARY KEY,
  name              TEXT NOT NULL,
  description       TEXT,
  cron_expression   TEXT NOT NULL,
  timezone          TEXT NOT NULL,
  queue_name        TEXT NOT NULL,
  payload_template  TEXT NOT NULL,
  priority          INTEGER NOT NULL,
  max_retries       INTEGER NOT NULL CHECK (max_retries >= 0),
  timeout_seconds   INTEGER NOT NULL CHECK (timeout_seconds > 0),
  tags              TEXT NOT NULL,
  metadata          TEXT NOT NULL,
  is_active         INTEGER NOT NULL CHECK (is_active IN (0, 1)),
  missed_run_policy TEXT NOT NULL CHECK (missed_run_policy IN ('skip','run_once','backfill')),
  overlap_policy    TEXT NOT NULL
                    CHECK (overlap_policy IN ('allow','skip_if_running','cancel_previous')),
  backfill_limit    INTEGER NOT NULL CHECK (backfill_limit >= 1),
  last_run_at       INTEGER,
  next_run_at       INTEGER,
  last_job_id       TEXT,
  run_count         INTEGER NOT NULL CHECK (run_count >= 0),
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  CHECK (is_active = 1 OR next_run_at IS NULL)
) STRICT;
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE is_active = 1;

CREATE TABLE schedule_runs (
  id          TEXT PRIMARY KEY,
  schedule_id TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
  fire_time   INTEGER NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('scheduled','manual','backfill')),
  job_id      TEXT,
  error       TEXT,
  created_at  INTEGER NOT NULL,
  CHECK (job_id IS NOT NULL OR error IS NOT NULL)
) STRICT;
CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule_id, created_at);
)sql";

// Version 14: the chat formats discord and teams beside slack
// (core/webhook.h). The CHECK of webhooks.format is widened in place, as
// version 8 widened jobs.status: no row is rewritten.
constexpr char kSchemaV14[] = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (format IN (''json'',''slack''))',
                     'CHECK (format IN (''json'',''slack'',''discord'',''teams''))')
 WHERE type = 'table' AND name = 'webhooks';
PRAGMA writable_schema = RESET;
)sql";

// Version 16: Spooled's completion_webhook. A job keeps its URL; a delivery
// of the built-in completion webhook (core/webhook.h) carries its target.
constexpr char kSchemaV16[] = R"sql(
ALTER TABLE jobs ADD COLUMN completion_webhook TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN url TEXT;
)sql";

// Version 20: error fingerprints (core/error_fingerprint.h). The engine
// sets error_fingerprint when a job dead-letters or is quarantined; the DLQ
// selects by (queue, fingerprint) through jobs_dlq_fingerprint. Jobs stored
// before it have none: SQL cannot compute one, so the engine's fingerprint
// backfill duty reads them through jobs_unfingerprinted (empty once it is
// done, so it costs nothing afterwards) and fills them in.
constexpr char kSchemaV20[] = R"sql(
ALTER TABLE jobs ADD COLUMN error_fingerprint TEXT
  CHECK (error_fingerprint IS NULL OR length(error_fingerprint) = 16);
CREATE INDEX jobs_dlq_fingerprint ON jobs (queue_name, error_fingerprint, deadlettered_at)
  WHERE status = 'deadletter';
CREATE INDEX jobs_unfingerprinted ON jobs (id)
  WHERE error_fingerprint IS NULL AND last_error IS NOT NULL
    AND status IN ('deadletter','quarantined');
)sql";

// Version 23: job_counts, how many jobs each queue holds in each status, so
// CountJobs (queue views, /jobs/stats, /metrics) reads a few rows per queue
// instead of walking the jobs. SqliteWriteTx writes each transaction's
// deltas with its commit (WriteCounts); filled from the jobs once, here.
constexpr char kSchemaV23[] = R"sql(
CREATE TABLE job_counts (
  queue_name TEXT NOT NULL,
  status     TEXT NOT NULL,
  n          INTEGER NOT NULL,
  PRIMARY KEY (queue_name, status)
) STRICT, WITHOUT ROWID;
INSERT INTO job_counts (queue_name, status, n)
  SELECT queue_name, status, count(*) FROM jobs GROUP BY queue_name, status;
)sql";

// Version 30: the CHECKs that list more than two values, as comparisons.
// SQLite evaluates `x IN ('a', 'b', 'c', ...)` by filling an ephemeral
// table with the list on every run of a statement that writes x, and every
// transition writes a job's status: about 2 microseconds more an UPDATE
// (docs/benchmarks.md, "Batch mode past beanstalkd in memory"). `x = 'a' OR
// x = 'b' ...` accepts and refuses the same values, NULL included. The text
// is edited in place, as versions 8 and 14 did, and no row is rewritten;
// the texts replaced are those versions 29 (jobs) and 2
// (webhook_deliveries) wrote.
constexpr char kSchemaV30[] = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(replace(sql,
       'CHECK (status IN (''pending'',''scheduled'',''processing'',
                       ''completed'',''deadletter'',''cancelled'',''quarantined'',''blocked''))',
       'CHECK (status = ''pending'' OR status = ''scheduled'' OR status = ''processing''
                       OR status = ''completed'' OR status = ''deadletter''
                       OR status = ''cancelled'' OR status = ''quarantined''
                       OR status = ''blocked'')'),
       'CHECK (dead_reason IN
                       (''max_retries_exceeded'',''lease_expired'',''non_retryable'',''expired''))',
       'CHECK (dead_reason = ''max_retries_exceeded'' OR dead_reason = ''lease_expired''
                       OR dead_reason = ''non_retryable'' OR dead_reason = ''expired'')')
 WHERE type = 'table' AND name = 'jobs';
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (status IN (''pending'',''delivered'',''failed''))',
                     'CHECK (status = ''pending'' OR status = ''delivered'' OR status = ''failed'')')
 WHERE type = 'table' AND name = 'webhook_deliveries';
PRAGMA writable_schema = RESET;
)sql";

constexpr Migration kMigrations[] = {
    {1, "initial schema", kSchemaV1},
    {2, "outgoing webhooks", kSchemaV2},
    {3, "duty leases and delivery reservations", kSchemaV3},
    {4, "webhooks version", kSchemaV4},
    {5, "history node id", kSchemaV5},
    {6, "throughput samples", kSchemaV6},
    {7, "queue redrive tail", kSchemaV7},
    {8, "crash counts, quarantine and snoozes", kSchemaV8},
    {9, "webhook signature format", kSchemaV9},
    {10, "operator audit log and idempotency keys", kSchemaV10},
    {11, "schedules", kSchemaV11},
    {12, "stored API keys", api_key_sql::kSchema},
    {13, "token exchange: token secret and refresh tokens", token_sql::kSchema},
    {14, "webhook formats discord and teams", kSchemaV14},
    {15, "workflows and job dependencies", workflow_sql::kSchema},
    {16, "completion webhooks", kSchemaV16},
    {17, "met dependencies", workflow_sql::kMetSchema},
    {18, "hourly throughput totals", throughput_sql::kHourlySchema},
    {19, "bulk operations", operation_sql::kSchema},
    {20, "error fingerprints", kSchemaV20},
    {21, "move operations and finished operations' retention", operation_sql::kMoveSchema},
    {22, "auto-redrive policies and revival counts", autoredrive_sql::kSchema},
    {23, "job counts per queue and status", kSchemaV23},
    {24, "compact job storage: jobs.seq keys payloads and history", compact_schema::kV24},
    {25, "listing indexes without the job id", compact_schema::kV25},
    {26, "a job's history packed into segments", compact_schema::kV26, compact_schema::PackHistory},
    {27, "a job's lease in a table of its own", compact_schema::kV27},
    {28, "retention indexes by status", compact_schema::kV28},
    {29, "a queue's name kept once, a job's id as 16 bytes", compact_schema::kV29},
    {30, "CHECKs of several values as comparisons", kSchemaV30},
};

}  // namespace

std::span<const Migration> Migrations() { return kMigrations; }

}  // namespace redrive::store::sqlite
