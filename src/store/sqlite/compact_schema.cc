#include "store/sqlite/compact_schema.h"

#include <cstdint>
#include <string>

#include "store/sqlite/history_codec.h"
#include "store/sqlite/row_mapping.h"

namespace redrive::store::sqlite::compact_schema {

// Version 24: compact job storage. A finished job's history and payload
// used to repeat its 36-character id in every row and in an index of their
// own (about 1,600 bytes a job with a 100-byte payload, half of it
// history). jobs gains `seq`, an INTEGER PRIMARY KEY (its rowid, so a
// lookup by seq is the table's own B-tree), and the two tables that grow
// with every job are keyed by it:
// - job_payloads.job_seq is the payload row's rowid: no second index, and
//   reading a job's payload is one rowid probe;
// - job_history holds job_seq (a few bytes) instead of the job id, its own
//   id as the UUID's 16 bytes (SqliteWriteTx::InsertHistory; entries stored
//   before this version keep their text id, which reads back the same), and
//   its index is (job_seq, created_at); rowid still orders entries written
//   in the same microsecond.
// jobs is rebuilt to get the new key (SQLite cannot add a primary key), so
// this migration rewrites every job once; Migrate runs it with foreign keys
// off, as SQLite documents for a table rebuild
// (https://sqlite.org/lang_altertable.html, section 7), and checks them all
// before it commits. The other tables that reference jobs (tags,
// dependencies, workflow membership, revivals) keep referencing jobs.id,
// still unique.
const char kV24[] = R"sql(
CREATE TABLE jobs_v24 (
  seq                INTEGER PRIMARY KEY,
  id                 TEXT NOT NULL UNIQUE,
  queue_name         TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('pending','scheduled','processing',
                       'completed','deadletter','cancelled','quarantined','blocked')),
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
  crash_count        INTEGER NOT NULL DEFAULT 0 CHECK (crash_count >= 0),
  crash_limit        INTEGER NOT NULL DEFAULT 3 CHECK (crash_limit >= 0),
  snooze_count       INTEGER NOT NULL DEFAULT 0 CHECK (snooze_count >= 0),
  max_snoozes        INTEGER NOT NULL DEFAULT 25 CHECK (max_snoozes >= 0),
  completion_webhook TEXT,
  error_fingerprint  TEXT CHECK (error_fingerprint IS NULL OR length(error_fingerprint) = 16),
  -- A lease exists exactly while the job is processing: each of its three
  -- fields is set in processing and in no other status.
  CHECK ((status = 'processing') = (lease_id IS NOT NULL)),
  CHECK ((status = 'processing') = (lease_expires_at IS NOT NULL)),
  CHECK ((status = 'processing') = (assigned_worker_id IS NOT NULL)),
  CHECK (status <> 'deadletter' OR (deadlettered_at IS NOT NULL AND dead_reason IS NOT NULL))
) STRICT;
INSERT INTO jobs_v24 (id, queue_name, status, priority, retry_count, max_retries,
    timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error,
    dead_reason, tags, idempotency_key, created_at, updated_at, scheduled_at, started_at,
    completed_at, expires_at, deadlettered_at, assigned_worker_id, lease_id, lease_expires_at,
    attempts, lease_expiries, crash_count, crash_limit, snooze_count, max_snoozes,
    completion_webhook, error_fingerprint)
  SELECT id, queue_name, status, priority, retry_count, max_retries,
    timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error,
    dead_reason, tags, idempotency_key, created_at, updated_at, scheduled_at, started_at,
    completed_at, expires_at, deadlettered_at, assigned_worker_id, lease_id, lease_expires_at,
    attempts, lease_expiries, crash_count, crash_limit, snooze_count, max_snoozes,
    completion_webhook, error_fingerprint
  FROM jobs ORDER BY rowid;

CREATE TABLE job_payloads_v24 (
  job_seq INTEGER PRIMARY KEY REFERENCES jobs_v24 (seq) ON DELETE CASCADE,
  payload TEXT NOT NULL,
  result  TEXT
) STRICT;
INSERT INTO job_payloads_v24 (job_seq, payload, result)
  SELECT j.seq, p.payload, p.result FROM job_payloads p JOIN jobs_v24 j ON j.id = p.job_id
  ORDER BY j.seq;

CREATE TABLE job_history_v24 (
  job_seq    INTEGER NOT NULL REFERENCES jobs_v24 (seq) ON DELETE CASCADE,
  id         ANY NOT NULL,  -- the UUID's 16 bytes (text in entries from before version 24)
  event_type TEXT NOT NULL,
  worker_id  TEXT,
  details    TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  node_id    TEXT
) STRICT;
INSERT INTO job_history_v24 (job_seq, id, event_type, worker_id, details, created_at, node_id)
  SELECT j.seq, h.id, h.event_type, h.worker_id, h.details, h.created_at, h.node_id
  FROM job_history h JOIN jobs_v24 j ON j.id = h.job_id ORDER BY h.rowid;

DROP TABLE job_history;
DROP TABLE job_payloads;
DROP TABLE jobs;
ALTER TABLE jobs_v24 RENAME TO jobs;
ALTER TABLE job_payloads_v24 RENAME TO job_payloads;
ALTER TABLE job_history_v24 RENAME TO job_history;

CREATE INDEX job_history_job ON job_history (job_seq, created_at);
CREATE UNIQUE INDEX jobs_idempotency ON jobs (idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_claim ON jobs (queue_name, priority DESC, created_at)
  WHERE status = 'pending';
CREATE INDEX jobs_scheduled ON jobs (scheduled_at) WHERE status = 'scheduled';
CREATE INDEX jobs_lease ON jobs (lease_expires_at) WHERE status = 'processing';
CREATE INDEX jobs_deadline ON jobs (expires_at)
  WHERE status IN ('pending','scheduled') AND expires_at IS NOT NULL;
CREATE INDEX jobs_dlq_queue ON jobs (queue_name, deadlettered_at) WHERE status = 'deadletter';
CREATE INDEX jobs_dlq ON jobs (deadlettered_at) WHERE status = 'deadletter';
CREATE INDEX jobs_listing ON jobs (queue_name, status, created_at, id);
CREATE INDEX jobs_queue_created ON jobs (queue_name, created_at, id);
CREATE INDEX jobs_created ON jobs (created_at, id);
CREATE INDEX jobs_retention ON jobs (queue_name, status, completed_at)
  WHERE completed_at IS NOT NULL;
CREATE INDEX jobs_dlq_fingerprint ON jobs (queue_name, error_fingerprint, deadlettered_at)
  WHERE status = 'deadletter';
CREATE INDEX jobs_unfingerprinted ON jobs (id)
  WHERE error_fingerprint IS NULL AND last_error IS NOT NULL
    AND status IN ('deadletter','quarantined');
)sql";

// Version 25: the listing indexes without the job id. Each of them held the
// 36-character id after created_at to break ties between jobs created in the
// same microsecond (the jobs of one batch enqueue): 40 of their 85, 76 and
// 61 bytes a job (docs/benchmarks.md, "Storage: listing indexes without the
// id"), and jobs_listing's entry is rewritten at every change of status.
// Every index already ends with the rowid, seq, the order the jobs were
// inserted in, which the ids one request makes follow (core/ids.h), so ties
// are broken by it instead: the listings order by (created_at, seq) and a
// bulk operation's cursor carries the seq (core/job_cursor.h), both read
// straight from the index. A cursor written before this version has no seq
// and goes on by id, sorting only the jobs of each created_at.
const char kV25[] = R"sql(
DROP INDEX jobs_listing;
DROP INDEX jobs_queue_created;
DROP INDEX jobs_created;
CREATE INDEX jobs_listing ON jobs (queue_name, status, created_at);
CREATE INDEX jobs_queue_created ON jobs (queue_name, created_at);
CREATE INDEX jobs_created ON jobs (created_at);
)sql";

// Version 26: a job's history packed into segments (history_codec.h): one
// row per segment of up to 1 KB keyed by (job_seq, seg), no other index,
// where each entry was a row of about 120 bytes plus an index entry of 20
// (docs/benchmarks.md, "Storage: a job's history packed"). The SQL renames
// the old table; PackHistory re-encodes its entries, each job's in the
// order they were read (created_at, then rowid), keeping their ids.
const char kV26[] = R"sql(
ALTER TABLE job_history RENAME TO job_history_v25;
CREATE TABLE job_history (
  job_seq INTEGER NOT NULL REFERENCES jobs (seq) ON DELETE CASCADE,
  seg     INTEGER NOT NULL,  -- 0, 1, ... in the order they were written
  entries BLOB NOT NULL,     -- history_codec.h
  PRIMARY KEY (job_seq, seg)
) STRICT, WITHOUT ROWID;
)sql";

namespace {

constexpr char kInsertSegment[] =
    "INSERT INTO job_history (job_seq, seg, entries) VALUES (?1, ?2, ?3)";

Status InsertSegment(Connection& conn, int64_t job_seq, int64_t seg, const std::string& entries) {
  REDRIVE_ASSIGN_OR_RETURN(Statement write, conn.Prepare(kInsertSegment));
  write.Bind(1, job_seq);
  write.Bind(2, seg);
  write.BindBlobCopy(3, history::BytesOf(entries));
  return write.Run();
}

}  // namespace

Status PackHistory(Connection& conn) {
  {
    REDRIVE_ASSIGN_OR_RETURN(
        Statement read,
        conn.Prepare("SELECT job_seq, id_text(id), event_type, worker_id, details, created_at,"
                     " node_id"
                     " FROM job_history_v25 ORDER BY job_seq, created_at, rowid"));
    int64_t job_seq = 0;
    int64_t seg = 0;
    std::string segment;
    history::SegmentTail tail;
    while (true) {
      REDRIVE_ASSIGN_OR_RETURN(bool row, read.Step());
      if (!segment.empty() && (!row || read.Int64(0) != job_seq)) {
        REDRIVE_RETURN_IF_ERROR(InsertSegment(conn, job_seq, seg, segment));
        segment.clear();
      }
      if (!row) break;
      if (read.Int64(0) != job_seq) {
        job_seq = read.Int64(0);
        seg = 0;
      }
      HistoryEntry h;
      h.id = read.String(1);  // kept compact in versions 24 and 25
      h.event_type = read.String(2);
      h.worker_id = read.OptString(3);
      h.details_json = read.String(4);
      h.created_at = read.Time(5);
      h.node_id = read.OptString(6);
      if (!history::AppendIfFits(segment, tail, h, /*keep_id=*/true)) {
        REDRIVE_RETURN_IF_ERROR(InsertSegment(conn, job_seq, seg, segment));
        segment.clear();
        ++seg;
        history::AppendIfFits(segment, tail, h, /*keep_id=*/true);
      }
    }
  }
  return conn.Exec("DROP TABLE job_history_v25");
}

// Version 27: a job's lease in a table of its own. assigned_worker_id,
// lease_id and lease_expires_at were columns of jobs, set at the claim and
// cleared at the completion: each job's row grew by about 80 bytes and then
// shrank, and the pages its growth had split kept that space free for good
// (rows are added at the end of the table only). A job that batch claims had
// taken stored 231 bytes of row, 82 of them free (docs/benchmarks.md,
// "Storage: the lease in a table of its own"). job_leases holds a row per
// job that holds a lease, keyed by its seq, and replaces the jobs_lease
// index with its own on lease_expires_at. jobs is rebuilt without the three
// columns and their CHECKs (a lease exactly while processing is now checked
// by SqliteWriteTx, before it writes), keeping every job's seq, the key of
// its payload, history and lease; Migrate runs it with foreign keys off and
// checks them before it commits, as for version 24.
const char kV27[] = R"sql(
CREATE TABLE jobs_v27 (
  seq                INTEGER PRIMARY KEY,
  id                 TEXT NOT NULL UNIQUE,
  queue_name         TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('pending','scheduled','processing',
                       'completed','deadletter','cancelled','quarantined','blocked')),
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
  attempts           INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  lease_expiries     INTEGER NOT NULL DEFAULT 0 CHECK (lease_expiries >= 0),
  crash_count        INTEGER NOT NULL DEFAULT 0 CHECK (crash_count >= 0),
  crash_limit        INTEGER NOT NULL DEFAULT 3 CHECK (crash_limit >= 0),
  snooze_count       INTEGER NOT NULL DEFAULT 0 CHECK (snooze_count >= 0),
  max_snoozes        INTEGER NOT NULL DEFAULT 25 CHECK (max_snoozes >= 0),
  completion_webhook TEXT,
  error_fingerprint  TEXT CHECK (error_fingerprint IS NULL OR length(error_fingerprint) = 16),
  CHECK (status <> 'deadletter' OR (deadlettered_at IS NOT NULL AND dead_reason IS NOT NULL))
) STRICT;
INSERT INTO jobs_v27 (seq, id, queue_name, status, priority, retry_count, max_retries,
    timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error,
    dead_reason, tags, idempotency_key, created_at, updated_at, scheduled_at, started_at,
    completed_at, expires_at, deadlettered_at, attempts, lease_expiries, crash_count,
    crash_limit, snooze_count, max_snoozes, completion_webhook, error_fingerprint)
  SELECT seq, id, queue_name, status, priority, retry_count, max_retries,
    timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error,
    dead_reason, tags, idempotency_key, created_at, updated_at, scheduled_at, started_at,
    completed_at, expires_at, deadlettered_at, attempts, lease_expiries, crash_count,
    crash_limit, snooze_count, max_snoozes, completion_webhook, error_fingerprint
  FROM jobs ORDER BY seq;

CREATE TABLE job_leases (
  job_seq            INTEGER PRIMARY KEY REFERENCES jobs (seq) ON DELETE CASCADE,
  assigned_worker_id TEXT NOT NULL,
  lease_id           TEXT NOT NULL,
  lease_expires_at   INTEGER NOT NULL
) STRICT;
INSERT INTO job_leases (job_seq, assigned_worker_id, lease_id, lease_expires_at)
  SELECT seq, assigned_worker_id, lease_id, lease_expires_at FROM jobs
  WHERE status = 'processing' ORDER BY seq;
CREATE INDEX job_leases_expiry ON job_leases (lease_expires_at);

DROP TABLE jobs;
ALTER TABLE jobs_v27 RENAME TO jobs;

CREATE UNIQUE INDEX jobs_idempotency ON jobs (idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_claim ON jobs (queue_name, priority DESC, created_at)
  WHERE status = 'pending';
CREATE INDEX jobs_scheduled ON jobs (scheduled_at) WHERE status = 'scheduled';
CREATE INDEX jobs_deadline ON jobs (expires_at)
  WHERE status IN ('pending','scheduled') AND expires_at IS NOT NULL;
CREATE INDEX jobs_dlq_queue ON jobs (queue_name, deadlettered_at) WHERE status = 'deadletter';
CREATE INDEX jobs_dlq ON jobs (deadlettered_at) WHERE status = 'deadletter';
CREATE INDEX jobs_listing ON jobs (queue_name, status, created_at);
CREATE INDEX jobs_queue_created ON jobs (queue_name, created_at);
CREATE INDEX jobs_created ON jobs (created_at);
CREATE INDEX jobs_retention ON jobs (queue_name, status, completed_at)
  WHERE completed_at IS NOT NULL;
CREATE INDEX jobs_dlq_fingerprint ON jobs (queue_name, error_fingerprint, deadlettered_at)
  WHERE status = 'deadletter';
CREATE INDEX jobs_unfingerprinted ON jobs (id)
  WHERE error_fingerprint IS NULL AND last_error IS NOT NULL
    AND status IN ('deadletter','quarantined');
)sql";

// Version 28: retention indexes by status. jobs_retention held
// (queue_name, status, completed_at) for every job with a completed_at: the
// status's name in each of them (47 bytes a finished job with a 13-character
// queue name), and dead and quarantined jobs as well, whose retention it
// does not serve or which have none. Completed and cancelled jobs get an
// index each without the status; dead jobs' retention walks jobs_dlq_queue by
// deadlettered_at (the same instant as their completed_at), so a dead job is
// in one index fewer and a redriven one leaves one fewer.
const char kV28[] = R"sql(
DROP INDEX jobs_retention;
CREATE INDEX jobs_completed_retention ON jobs (queue_name, completed_at)
  WHERE status = 'completed';
CREATE INDEX jobs_cancelled_retention ON jobs (queue_name, completed_at)
  WHERE status = 'cancelled';
)sql";

// Version 29: a queue's name kept once, a job's id as 16 bytes, and a
// finished job's updated_at not twice.
// - jobs held each job's queue name, and so did four indexes of a finished
//   job (listing by queue and status, by queue, retention, and the row
//   itself): about 5 bytes a job per character of the name
//   (docs/operations.md). queue_names holds each name once, with an id; jobs
//   holds the id (a byte or two) in queue_id, which the indexes hold instead.
//   A name is added before the first job is written into its queue and goes
//   with the queue once no job is in it (SqliteWriteTx).
// - A job's id, a UUID in 36 characters of text, is stored as its 16 bytes
//   (compact_id, connection.cc; any other id stays text), in jobs and in
//   every table that refers to a job by id (tags, dependencies, workflow
//   members, auto-revivals): about 40 bytes a job in the row and the index
//   by id.
// - A finished job's updated_at is its completed_at: the row holds NULL for
//   it then (UpdatedAtColumn, job_columns.h), 8 bytes less.
// jobs is rebuilt as for version 27, keeping every seq, and so are the
// tables that refer to it by id.
const char kV29[] = R"sql(
CREATE TABLE queue_names (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
) STRICT;
INSERT INTO queue_names (name) SELECT DISTINCT queue_name FROM jobs ORDER BY queue_name;

CREATE TABLE jobs_v29 (
  seq                INTEGER PRIMARY KEY,
  id                 ANY NOT NULL UNIQUE,  -- compact_id(): a UUID as its 16 bytes
  queue_id           INTEGER NOT NULL REFERENCES queue_names (id),
  status             TEXT NOT NULL CHECK (status IN ('pending','scheduled','processing',
                       'completed','deadletter','cancelled','quarantined','blocked')),
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
  updated_at         INTEGER,  -- NULL: the same as completed_at
  scheduled_at       INTEGER NOT NULL,
  started_at         INTEGER,
  completed_at       INTEGER,
  expires_at         INTEGER,
  deadlettered_at    INTEGER,
  attempts           INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  lease_expiries     INTEGER NOT NULL DEFAULT 0 CHECK (lease_expiries >= 0),
  crash_count        INTEGER NOT NULL DEFAULT 0 CHECK (crash_count >= 0),
  crash_limit        INTEGER NOT NULL DEFAULT 3 CHECK (crash_limit >= 0),
  snooze_count       INTEGER NOT NULL DEFAULT 0 CHECK (snooze_count >= 0),
  max_snoozes        INTEGER NOT NULL DEFAULT 25 CHECK (max_snoozes >= 0),
  completion_webhook TEXT,
  error_fingerprint  TEXT CHECK (error_fingerprint IS NULL OR length(error_fingerprint) = 16),
  CHECK (status <> 'deadletter' OR (deadlettered_at IS NOT NULL AND dead_reason IS NOT NULL)),
  CHECK (updated_at IS NOT NULL OR completed_at IS NOT NULL)
) STRICT;
INSERT INTO jobs_v29 (seq, id, queue_id, status, priority, retry_count, max_retries,
    timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error,
    dead_reason, tags, idempotency_key, created_at, updated_at, scheduled_at, started_at,
    completed_at, expires_at, deadlettered_at, attempts, lease_expiries, crash_count,
    crash_limit, snooze_count, max_snoozes, completion_webhook, error_fingerprint)
  SELECT seq, compact_id(id), (SELECT id FROM queue_names WHERE name = jobs.queue_name), status,
    priority,
    retry_count, max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms,
    backoff_jitter_ms, last_error, dead_reason, tags, idempotency_key, created_at,
    CASE WHEN updated_at = completed_at THEN NULL ELSE updated_at END, scheduled_at, started_at, completed_at, expires_at, deadlettered_at, attempts,
    lease_expiries, crash_count, crash_limit, snooze_count, max_snoozes, completion_webhook,
    error_fingerprint
  FROM jobs ORDER BY seq;

DROP TABLE jobs;
ALTER TABLE jobs_v29 RENAME TO jobs;

CREATE TABLE job_tags_v29 (
  job_id ANY NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (job_id, key)
) STRICT, WITHOUT ROWID;
INSERT INTO job_tags_v29 (job_id, key, value)
  SELECT compact_id(job_id), key, value FROM job_tags;
DROP TABLE job_tags;
ALTER TABLE job_tags_v29 RENAME TO job_tags;
CREATE INDEX job_tags_kv ON job_tags (key, value, job_id);

CREATE TABLE job_dependencies_v29 (
  job_id            ANY NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  depends_on_job_id ANY NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  mode              TEXT NOT NULL CHECK (mode IN ('all','any')),
  met               INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (job_id, depends_on_job_id),
  CHECK (job_id <> depends_on_job_id)
) STRICT, WITHOUT ROWID;
INSERT INTO job_dependencies_v29 (job_id, depends_on_job_id, mode, met)
  SELECT compact_id(job_id), compact_id(depends_on_job_id), mode, met FROM job_dependencies;
DROP TABLE job_dependencies;
ALTER TABLE job_dependencies_v29 RENAME TO job_dependencies;
CREATE INDEX job_dependencies_dependents ON job_dependencies (depends_on_job_id, job_id);
CREATE INDEX job_dependencies_unmet ON job_dependencies (job_id) WHERE met = 0;

CREATE TABLE workflow_jobs_v29 (
  job_id      ANY PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
  job_key     TEXT NOT NULL,
  position    INTEGER NOT NULL CHECK (position >= 0),
  UNIQUE (workflow_id, position),
  UNIQUE (workflow_id, job_key)
) STRICT;
INSERT INTO workflow_jobs_v29 (job_id, workflow_id, job_key, position)
  SELECT compact_id(job_id), workflow_id, job_key, position FROM workflow_jobs ORDER BY rowid;
DROP TABLE workflow_jobs;
ALTER TABLE workflow_jobs_v29 RENAME TO workflow_jobs;

CREATE TABLE job_auto_revivals_v29 (
  job_id   ANY PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  revivals INTEGER NOT NULL CHECK (revivals > 0)
) STRICT, WITHOUT ROWID;
INSERT INTO job_auto_revivals_v29 (job_id, revivals)
  SELECT compact_id(job_id), revivals FROM job_auto_revivals;
DROP TABLE job_auto_revivals;
ALTER TABLE job_auto_revivals_v29 RENAME TO job_auto_revivals;

CREATE UNIQUE INDEX jobs_idempotency ON jobs (idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_claim ON jobs (queue_id, priority DESC, created_at)
  WHERE status = 'pending';
CREATE INDEX jobs_scheduled ON jobs (scheduled_at) WHERE status = 'scheduled';
CREATE INDEX jobs_deadline ON jobs (expires_at)
  WHERE status IN ('pending','scheduled') AND expires_at IS NOT NULL;
CREATE INDEX jobs_dlq_queue ON jobs (queue_id, deadlettered_at) WHERE status = 'deadletter';
CREATE INDEX jobs_dlq ON jobs (deadlettered_at) WHERE status = 'deadletter';
CREATE INDEX jobs_listing ON jobs (queue_id, status, created_at);
CREATE INDEX jobs_queue_created ON jobs (queue_id, created_at);
CREATE INDEX jobs_created ON jobs (created_at);
CREATE INDEX jobs_dlq_fingerprint ON jobs (queue_id, error_fingerprint, deadlettered_at)
  WHERE status = 'deadletter';
CREATE INDEX jobs_unfingerprinted ON jobs (id)
  WHERE error_fingerprint IS NULL AND last_error IS NOT NULL
    AND status IN ('deadletter','quarantined');
CREATE INDEX jobs_completed_retention ON jobs (queue_id, completed_at)
  WHERE status = 'completed';
CREATE INDEX jobs_cancelled_retention ON jobs (queue_id, completed_at)
  WHERE status = 'cancelled';
)sql";

}  // namespace redrive::store::sqlite::compact_schema
