#include "store/postgres/pg_schema.h"

#include "store/postgres/pg_api_key_sql.h"
#include "store/postgres/pg_autoredrive_sql.h"
#include "store/postgres/pg_job_checks_sql.h"
#include "store/postgres/pg_operation_sql.h"
#include "store/postgres/pg_throughput_sql.h"
#include "store/postgres/pg_token_sql.h"
#include "store/postgres/pg_workflow_sql.h"

namespace redrive::store::postgres {
namespace {

// Version 1: the whole model, as on SQLite (src/store/sqlite/sqlite_schema.cc,
// whose comments explain each index), with these differences:
//  - Times are bigint microseconds since the Unix epoch (UTC), the same
//    integers as on SQLite, so both stores compare and order them alike.
//  - payload and result stay in jobs: PostgreSQL moves a large value out of
//    line (TOAST) and an UPDATE that does not assign it keeps the pointer,
//    so a transition never rewrites a payload it did not change. They are
//    text, not jsonb, so a job reads back byte for byte as it was written.
//  - tags are a jsonb object with a GIN index (tag filters: @> and ?).
//  - Identifiers and the texts listings sort or group by are COLLATE "C":
//    byte order, as on SQLite, whatever the database's locale.
//  - History and deliveries carry `seq` (identity) for insertion order,
//    which SQLite's rowid gives.
// The CHECK constraints repeat the state machine's invariants.
constexpr char kSchemaV1[] = R"sql(
CREATE TABLE redrive.jobs (
  id                 text COLLATE "C" PRIMARY KEY,
  queue_name         text COLLATE "C" NOT NULL,
  status             text COLLATE "C" NOT NULL CHECK (status IN
                       ('pending','scheduled','processing','completed','deadletter','cancelled')),
  payload            text NOT NULL,
  result             text,
  priority           integer NOT NULL CHECK (priority BETWEEN -100 AND 100),
  retry_count        integer NOT NULL CHECK (retry_count >= 0),
  max_retries        integer NOT NULL CHECK (max_retries >= 0),
  timeout_seconds    integer NOT NULL CHECK (timeout_seconds > 0),
  backoff_base_ms    bigint NOT NULL CHECK (backoff_base_ms >= 0),
  backoff_max_ms     bigint NOT NULL CHECK (backoff_max_ms >= 0),
  backoff_jitter_ms  bigint NOT NULL CHECK (backoff_jitter_ms >= 0),
  last_error         text COLLATE "C",
  dead_reason        text COLLATE "C" CHECK (dead_reason IN
                       ('max_retries_exceeded','lease_expired','non_retryable','expired')),
  tags               jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(tags) = 'object'),
  idempotency_key    text COLLATE "C",
  created_at         bigint NOT NULL,
  updated_at         bigint NOT NULL,
  scheduled_at       bigint NOT NULL,
  started_at         bigint,
  completed_at       bigint,
  expires_at         bigint,
  deadlettered_at    bigint,
  assigned_worker_id text COLLATE "C",
  lease_id           text COLLATE "C",
  lease_expires_at   bigint,
  attempts           integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  lease_expiries     integer NOT NULL DEFAULT 0 CHECK (lease_expiries >= 0),
  -- A lease exists exactly while the job is processing.
  CHECK ((status = 'processing') = (lease_id IS NOT NULL)),
  CHECK ((status = 'processing') = (lease_expires_at IS NOT NULL)),
  CHECK ((status = 'processing') = (assigned_worker_id IS NOT NULL)),
  CHECK (status <> 'deadletter' OR (deadlettered_at IS NOT NULL AND dead_reason IS NOT NULL))
) WITH (
  -- Every job row is updated several times (claim, heartbeats, completion)
  -- and deleted by retention, so dead row versions pile up at the rate of
  -- the queue's throughput. Vacuuming at 1% of the table (the default is
  -- 20%) keeps the heap and the partial indexes the claim walks small.
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.02,
  -- Room on each page for the next version of its rows: an update that
  -- assigns no indexed column (a payload repair, a release's bookkeeping)
  -- is then HOT (no index entries written), and the others stay on the
  -- page they were read from.
  fillfactor = 80
);

CREATE UNIQUE INDEX jobs_idempotency ON redrive.jobs (idempotency_key)
  WHERE idempotency_key IS NOT NULL;
-- The claim: exactly SelectClaimable's order, so a claim reads the first
-- rows of one queue's range and never sorts.
CREATE INDEX jobs_claim ON redrive.jobs (queue_name, priority DESC, created_at, id)
  WHERE status = 'pending';
CREATE INDEX jobs_scheduled ON redrive.jobs (scheduled_at) WHERE status = 'scheduled';
CREATE INDEX jobs_lease ON redrive.jobs (lease_expires_at) WHERE status = 'processing';
CREATE INDEX jobs_deadline ON redrive.jobs (expires_at)
  WHERE status IN ('pending','scheduled') AND expires_at IS NOT NULL;
CREATE INDEX jobs_dlq_queue ON redrive.jobs (queue_name, deadlettered_at)
  WHERE status = 'deadletter';
CREATE INDEX jobs_dlq ON redrive.jobs (deadlettered_at) WHERE status = 'deadletter';
CREATE INDEX jobs_listing ON redrive.jobs (queue_name, status, created_at, id);
CREATE INDEX jobs_queue_created ON redrive.jobs (queue_name, created_at, id);
CREATE INDEX jobs_created ON redrive.jobs (created_at, id);
CREATE INDEX jobs_retention ON redrive.jobs (queue_name, status, completed_at)
  WHERE completed_at IS NOT NULL;
-- tag=k=v (tags @> '{"k":"v"}') and tag=k (tags ? 'k'); tags never change
-- after insert, so the index costs the hot path nothing.
CREATE INDEX jobs_tags ON redrive.jobs USING gin (tags);

CREATE TABLE redrive.job_history (
  seq        bigint GENERATED ALWAYS AS IDENTITY,
  id         text COLLATE "C" NOT NULL,
  job_id     text COLLATE "C" NOT NULL REFERENCES redrive.jobs (id) ON DELETE CASCADE,
  event_type text NOT NULL,
  worker_id  text,
  details    text NOT NULL DEFAULT '{}',
  created_at bigint NOT NULL
);
CREATE INDEX job_history_job ON redrive.job_history (job_id, created_at, seq);

CREATE TABLE redrive.queues (
  queue_name             text COLLATE "C" PRIMARY KEY,
  max_retries            integer NOT NULL CHECK (max_retries >= 0),
  default_timeout        integer NOT NULL CHECK (default_timeout > 0),
  enabled                boolean NOT NULL,
  paused                 boolean NOT NULL,
  paused_reason          text,
  backoff_base_ms        bigint NOT NULL,
  backoff_max_ms         bigint NOT NULL,
  backoff_jitter_ms      bigint NOT NULL,
  retention_completed_s  bigint,  -- NULL: keep forever
  retention_deadletter_s bigint,
  retention_cancelled_s  bigint,
  created_at             bigint NOT NULL,
  updated_at             bigint NOT NULL
);

-- Heartbeats rewrite a worker's row often and change no indexed column:
-- with room on the page they are HOT updates.
CREATE TABLE redrive.workers (
  id                text COLLATE "C" PRIMARY KEY,
  queue_name        text NOT NULL,
  hostname          text NOT NULL,
  worker_type       text,
  max_concurrency   integer NOT NULL,
  metadata          text NOT NULL DEFAULT '{}',
  version           text,
  status            text NOT NULL,
  current_jobs      integer NOT NULL,
  registered_at     bigint NOT NULL,
  last_heartbeat_at bigint NOT NULL,
  deregistered_at   bigint
) WITH (fillfactor = 70);

-- Outgoing webhooks and their durable outbox: a state change and the
-- delivery rows of the events it causes commit together.
CREATE TABLE redrive.webhooks (
  id                   text COLLATE "C" PRIMARY KEY,
  name                 text NOT NULL,
  url                  text NOT NULL,
  events               text NOT NULL,  -- comma-separated event names
  secret               text NOT NULL,
  enabled              boolean NOT NULL,
  format               text NOT NULL CHECK (format IN ('json','slack')),
  consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  disabled_reason      text,
  created_at           bigint NOT NULL,
  updated_at           bigint NOT NULL,
  last_delivery_at     bigint
);

CREATE TABLE redrive.webhook_deliveries (
  seq              bigint GENERATED ALWAYS AS IDENTITY,
  id               text COLLATE "C" PRIMARY KEY,
  webhook_id       text COLLATE "C" NOT NULL REFERENCES redrive.webhooks (id) ON DELETE CASCADE,
  event_id         text NOT NULL,
  event            text NOT NULL,
  body             text NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending','delivered','failed')),
  attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at  bigint NOT NULL,
  last_status_code integer,
  last_error       text,
  created_at       bigint NOT NULL,
  delivered_at     bigint,
  duration_ms      bigint,
  CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due ON redrive.webhook_deliveries (next_attempt_at)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook
  ON redrive.webhook_deliveries (webhook_id, created_at, seq);
CREATE INDEX webhook_deliveries_finished ON redrive.webhook_deliveries (created_at)
  WHERE status <> 'pending';
)sql";

// Version 2: several nodes. A delivery's reservation is the token of the
// attempt holding it (an attempt whose reservation lapsed and was taken
// again records nothing). webhooks_version is moved by the database itself
// whenever a webhook's subscription changes, so every node sees in one
// cheap read that its cached subscriptions are stale (WebhooksVersion);
// delivery bookkeeping (failure streaks) does not move it.
constexpr char kSchemaV2[] = R"sql(
ALTER TABLE redrive.webhook_deliveries ADD COLUMN reservation text;

CREATE TABLE redrive.webhooks_version (
  id      integer PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO redrive.webhooks_version (id, version) VALUES (1, 1);

CREATE FUNCTION redrive.bump_webhooks_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE redrive.webhooks_version SET version = version + 1 WHERE id = 1;
  RETURN NULL;
END $$;
CREATE TRIGGER webhooks_version_on_insert_delete AFTER INSERT OR DELETE ON redrive.webhooks
  FOR EACH ROW EXECUTE FUNCTION redrive.bump_webhooks_version();
CREATE TRIGGER webhooks_version_on_update AFTER UPDATE ON redrive.webhooks
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.url IS DISTINCT FROM NEW.url
    OR OLD.events IS DISTINCT FROM NEW.events OR OLD.secret IS DISTINCT FROM NEW.secret
    OR OLD.enabled IS DISTINCT FROM NEW.enabled OR OLD.format IS DISTINCT FROM NEW.format)
  EXECUTE FUNCTION redrive.bump_webhooks_version();
)sql";

// Version 3: the row readiness writes to find out whether the database
// takes writes again, after a write failed because it could not
// (PgStore::Ping). Written only then.
constexpr char kSchemaV3[] = R"sql(
CREATE TABLE redrive.write_probe (
  id     integer PRIMARY KEY CHECK (id = 1),
  probes bigint NOT NULL
);
INSERT INTO redrive.write_probe (id, probes) VALUES (1, 0);
)sql";

// Version 4: no foreign key from job_history to jobs. Its check was a
// lookup (and a row lock) per history entry inserted, about a tenth of the
// database's work per job; history is only ever written in the statement
// that writes its job, and kDeleteJobs/kDeleteQueueJobs delete it with the
// job.
constexpr char kSchemaV4[] = R"sql(
ALTER TABLE redrive.job_history DROP CONSTRAINT job_history_job_id_fkey;
)sql";

// Version 5: jobs_tags holds only jobs that have tags. A status change is
// never a HOT update, so every claim and completion inserted an entry for
// the new row version into the GIN index too, even for the empty tags of
// most jobs (and the GIN pending list takes one lock for all writers).
constexpr char kSchemaV5[] = R"sql(
DROP INDEX redrive.jobs_tags;
CREATE INDEX jobs_tags ON redrive.jobs USING gin (tags) WHERE tags <> '{}'::jsonb;
)sql";

// Version 6: which node made each history entry (HistoryEntry::node_id;
// NULL for entries written before, and for those of redrive.enqueue, which
// runs in an application's transaction, not on a node). Adding a nullable
// column without a default rewrites no row.
constexpr char kSchemaV6[] = R"sql(
ALTER TABLE redrive.job_history ADD COLUMN node_id text;
)sql";

// Version 7: the cluster's throughput history (RecordThroughput): each
// node's job counts per sampling interval (`at`, its end, in microseconds)
// and queue, summed over the nodes when read and pruned by age. The key
// leads with `at`, so the read and the pruning walk it by range. A node
// writes only its own rows, so nodes never wait for each other's inserts.
constexpr char kSchemaV7[] = R"sql(
CREATE TABLE redrive.throughput_samples (
  at           bigint NOT NULL,
  node_id      text COLLATE "C" NOT NULL,
  queue_name   text COLLATE "C" NOT NULL,
  enqueued     bigint NOT NULL CHECK (enqueued >= 0),
  completed    bigint NOT NULL CHECK (completed >= 0),
  failed       bigint NOT NULL CHECK (failed >= 0),
  deadlettered bigint NOT NULL CHECK (deadlettered >= 0),
  PRIMARY KEY (at, node_id, queue_name)
);
)sql";

// Version 8: where a queue's throttled redrives have got to
// (QueueConfig::redrive_until, microseconds), so the next one queues behind
// them. A nullable column without a default rewrites no row.
constexpr char kSchemaV8[] = R"sql(
ALTER TABLE redrive.queues ADD COLUMN redrive_until bigint;
)sql";

// Version 9: crashes, quarantine and snoozes (core/job.h): the counters and
// limits of each job, the queues' defaults, and the status `quarantined`
// (the CHECK of jobs.status, named by PostgreSQL after its column, is
// replaced). Columns with a constant default rewrite no row; the new CHECK
// reads the table once.
constexpr char kSchemaV9[] = R"sql(
ALTER TABLE redrive.jobs
  ADD COLUMN crash_count integer NOT NULL DEFAULT 0 CHECK (crash_count >= 0),
  ADD COLUMN crash_limit integer NOT NULL DEFAULT 3 CHECK (crash_limit >= 0),
  ADD COLUMN snooze_count integer NOT NULL DEFAULT 0 CHECK (snooze_count >= 0),
  ADD COLUMN max_snoozes integer NOT NULL DEFAULT 25 CHECK (max_snoozes >= 0),
  DROP CONSTRAINT jobs_status_check,
  ADD CONSTRAINT jobs_status_check CHECK (status IN
    ('pending','scheduled','processing','completed','deadletter','cancelled','quarantined'));
ALTER TABLE redrive.queues
  ADD COLUMN crash_limit integer NOT NULL DEFAULT 3 CHECK (crash_limit >= 0),
  ADD COLUMN max_snoozes integer NOT NULL DEFAULT 25 CHECK (max_snoozes >= 0);
)sql";

// Version 10: Spooled-compatible signature headers, per webhook (Webhook::signature_format).
constexpr char kSchemaV10[] = R"sql(
ALTER TABLE redrive.webhooks ADD COLUMN signature_format text NOT NULL DEFAULT 'redrive'
  CHECK (signature_format IN ('redrive','spooled'));
)sql";

// Version 11: the operator audit log and the Idempotency-Key records of
// operator routes (core/audit.h). An entry's targets are rows of their own,
// so "what happened to this job?" is an index lookup; entries are read
// newest first and pruned by age, both by the (at, id) index.
constexpr char kSchemaV11[] = R"sql(
CREATE TABLE redrive.audit_log (
  id             text COLLATE "C" PRIMARY KEY,
  at             bigint NOT NULL,
  actor          text NOT NULL,
  role           text NOT NULL,
  client_address text NOT NULL,
  method         text NOT NULL,
  route          text NOT NULL,
  action         text NOT NULL,
  selector       text,
  count          bigint,
  status         integer NOT NULL CHECK (status BETWEEN 100 AND 599),
  request_id     text NOT NULL,
  reason         text
);
CREATE INDEX audit_log_at ON redrive.audit_log (at, id);
CREATE TABLE redrive.audit_targets (
  entry_id text COLLATE "C" NOT NULL REFERENCES redrive.audit_log (id) ON DELETE CASCADE,
  position integer NOT NULL,
  target   text COLLATE "C" NOT NULL,
  PRIMARY KEY (entry_id, position)
);
CREATE INDEX audit_targets_target ON redrive.audit_targets (target, entry_id);
CREATE TABLE redrive.operator_requests (
  scope                 text COLLATE "C" NOT NULL,
  key                   text COLLATE "C" NOT NULL,
  fingerprint           text NOT NULL,
  created_at            bigint NOT NULL,
  expires_at            bigint NOT NULL,
  response_status       integer,
  response_content_type text NOT NULL DEFAULT '',
  response_headers      text NOT NULL DEFAULT '',
  response_body         text NOT NULL DEFAULT '',
  PRIMARY KEY (scope, key)
);
CREATE INDEX operator_requests_expiry ON redrive.operator_requests (expires_at);
)sql";

// Version 12: schedules (cron jobs) and the history of their runs. The due
// selection walks schedules_due (active schedules by next_run_at only), so
// neither start-up nor a tick scans every schedule; a schedule's runs are
// read newest first through schedule_runs_by_schedule.
constexpr char kSchemaV12[] = R"sql(
CREATE TABLE redrive.schedules (
  id                text COLLATE "C" PRIMARY KEY,
  name              text NOT NULL,
  description       text,
  cron_expression   text NOT NULL,
  timezone          text NOT NULL,
  queue_name        text NOT NULL,
  payload_template  text NOT NULL,
  priority          integer NOT NULL,
  max_retries       integer NOT NULL CHECK (max_retries >= 0),
  timeout_seconds   integer NOT NULL CHECK (timeout_seconds > 0),
  tags              text NOT NULL,
  metadata          text NOT NULL,
  is_active         boolean NOT NULL,
  missed_run_policy text NOT NULL CHECK (missed_run_policy IN ('skip','run_once','backfill')),
  overlap_policy    text NOT NULL
                    CHECK (overlap_policy IN ('allow','skip_if_running','cancel_previous')),
  backfill_limit    integer NOT NULL CHECK (backfill_limit >= 1),
  last_run_at       bigint,
  next_run_at       bigint,
  last_job_id       text,
  run_count         bigint NOT NULL CHECK (run_count >= 0),
  created_at        bigint NOT NULL,
  updated_at        bigint NOT NULL,
  CHECK (is_active OR next_run_at IS NULL)
);
CREATE INDEX schedules_due ON redrive.schedules (next_run_at) WHERE is_active;

CREATE TABLE redrive.schedule_runs (
  id          text COLLATE "C" PRIMARY KEY,
  schedule_id text COLLATE "C" NOT NULL REFERENCES redrive.schedules (id) ON DELETE CASCADE,
  fire_time   bigint NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('scheduled','manual','backfill')),
  job_id      text,
  error       text,
  created_at  bigint NOT NULL,
  CHECK (job_id IS NOT NULL OR error IS NOT NULL)
);
CREATE INDEX schedule_runs_by_schedule ON redrive.schedule_runs (schedule_id, created_at);
)sql";

// Version 15: the chat formats discord and teams beside slack
// (core/webhook.h): the CHECK of webhooks.format, named by PostgreSQL after
// its column, is replaced.
constexpr char kSchemaV15[] = R"sql(
ALTER TABLE redrive.webhooks
  DROP CONSTRAINT webhooks_format_check,
  ADD CONSTRAINT webhooks_format_check CHECK (format IN ('json','slack','discord','teams'));
)sql";

// Version 17: Spooled's completion_webhook. A job keeps its URL; a delivery
// of the built-in completion webhook (core/webhook.h) carries its target.
constexpr char kSchemaV17[] = R"sql(
ALTER TABLE redrive.jobs ADD COLUMN completion_webhook text;
ALTER TABLE redrive.webhook_deliveries ADD COLUMN url text;
)sql";

// Version 21: error fingerprints (core/error_fingerprint.h), as SQLite's
// version 19: set by the engine when a job dead-letters or is quarantined;
// the DLQ selects by (queue, fingerprint) through jobs_dlq_fingerprint; jobs
// stored before have none until the engine's fingerprint backfill duty
// (which reads jobs_unfingerprinted, empty once done) fills them in. Adding
// a nullable column without a default rewrites no row.
constexpr char kSchemaV21[] = R"sql(
ALTER TABLE redrive.jobs ADD COLUMN error_fingerprint text COLLATE "C"
  CHECK (error_fingerprint IS NULL OR length(error_fingerprint) = 16);
CREATE INDEX jobs_dlq_fingerprint ON redrive.jobs (queue_name, error_fingerprint, deadlettered_at)
  WHERE status = 'deadletter';
CREATE INDEX jobs_unfingerprinted ON redrive.jobs (id)
  WHERE error_fingerprint IS NULL AND last_error IS NOT NULL
    AND status IN ('deadletter','quarantined');
)sql";

// Version 24: job_counts, as SQLite's version 23: how many jobs each queue
// holds in each status, so CountJobs reads a few rows per queue instead of
// walking the jobs. PgWriteTx sums its transaction's deltas and writes them
// with the COMMIT; redrive.enqueue adds its job itself. Sharded by the
// writing backend (pg_backend_pid() % 64): one row per (queue, status)
// would make every concurrent transaction of a queue wait for the others'
// commits. A shard's n may go negative (a job counted in on one connection
// and out on another); the sum over the shards is the count. The jobs
// table is locked while the counts are filled in.
constexpr char kSchemaV24[] = R"sql(
LOCK TABLE redrive.jobs IN SHARE MODE;
CREATE TABLE redrive.job_counts (
  queue_name text COLLATE "C" NOT NULL,
  status     text COLLATE "C" NOT NULL,
  shard      smallint NOT NULL,
  n          bigint NOT NULL,
  PRIMARY KEY (queue_name, status, shard)
);
INSERT INTO redrive.job_counts (queue_name, status, shard, n)
  SELECT queue_name, status, 0, count(*) FROM redrive.jobs GROUP BY queue_name, status;
)sql";

constexpr PgMigration kMigrations[] = {
    {1, "initial schema", kSchemaV1},
    {2, "delivery reservations, webhooks version", kSchemaV2},
    {3, "readiness write probe", kSchemaV3},
    {4, "history without a foreign key", kSchemaV4},
    {5, "tags index of jobs with tags only", kSchemaV5},
    {6, "history node id", kSchemaV6},
    {7, "throughput samples", kSchemaV7},
    {8, "queue redrive tail", kSchemaV8},
    {9, "crash counts, quarantine and snoozes", kSchemaV9},
    {10, "webhook signature format", kSchemaV10},
    {11, "operator audit log and idempotency keys", kSchemaV11},
    {12, "schedules", kSchemaV12},
    {13, "stored API keys", api_key_sql::kSchema},
    {14, "token exchange: token secret and refresh tokens", token_sql::kSchema},
    {15, "webhook formats discord and teams", kSchemaV15},
    {16, "workflows and job dependencies", workflow_sql::kSchema},
    {17, "completion webhooks", kSchemaV17},
    {18, "met dependencies", workflow_sql::kMetSchema},
    {19, "hourly throughput totals", throughput_sql::kHourlySchema},
    {20, "bulk operations", operation_sql::kSchema},
    {21, "error fingerprints", kSchemaV21},
    {22, "move operations and finished operations' retention", operation_sql::kMoveSchema},
    {23, "auto-redrive policies and revival counts", autoredrive_sql::kSchema},
    {24, "job counts per queue and status", kSchemaV24},
    {25, "single-column checks of jobs as domains", job_checks_sql::kDomainsSchema},
    {26, "invariants of a job's row as one domain", job_checks_sql::kRowSchema},
};

}  // namespace

std::span<const PgMigration> PgMigrations() { return kMigrations; }

}  // namespace redrive::store::postgres
