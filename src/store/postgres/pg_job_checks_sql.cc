#include "store/postgres/pg_job_checks_sql.h"

namespace redrive::store::postgres::job_checks_sql {

// Version 25: the CHECKs of single jobs columns become domains. PostgreSQL
// reads a table's CHECK constraints from the catalog text and plans them
// again at the start of every statement that writes the table (ExecRelCheck:
// stringToNode and expression_planner per constraint), all 21 of them for
// an UPDATE that assigns two columns. A domain's check is planned once per
// backend (the type cache) and runs only for the columns a statement
// assigns. Measured in docs/benchmarks.md ("Checks planned once"). The same
// values are refused, with the same SQLSTATE (23514). Changing the values a
// column takes is now ALTER DOMAIN.
//
// What stays on the table (until version 26, below): the four checks across
// columns (a lease exactly while processing, a dead letter's time and
// reason), and those of status and tags. Changing a column's type rebuilds
// every partial index that names it, and status is a key of jobs_retention
// (every finished job) and tags the key of the GIN index: rebuilding those
// would hold the table for seconds per million jobs. The indexes rebuilt
// here hold pending jobs (jobs_claim: priority) and dead letters
// (error_fingerprint's two).
//
// No row is rewritten: a column's type becomes a domain without constraints
// (binary coercible), and the domains' checks are added NOT VALID, for every
// stored row passed the same CHECKs, dropped in this transaction under the
// table's lock. Rows written from now on are checked.
const char kDomainsSchema[] = R"sql(
CREATE DOMAIN redrive.dead_reason AS text COLLATE "C";
CREATE DOMAIN redrive.job_priority AS integer;
CREATE DOMAIN redrive.nonnegative_int AS integer;
CREATE DOMAIN redrive.positive_int AS integer;
CREATE DOMAIN redrive.nonnegative_bigint AS bigint;
CREATE DOMAIN redrive.error_fingerprint AS text COLLATE "C";
ALTER TABLE redrive.jobs
  DROP CONSTRAINT jobs_dead_reason_check,
  DROP CONSTRAINT jobs_priority_check,
  DROP CONSTRAINT jobs_retry_count_check,
  DROP CONSTRAINT jobs_max_retries_check,
  DROP CONSTRAINT jobs_attempts_check,
  DROP CONSTRAINT jobs_lease_expiries_check,
  DROP CONSTRAINT jobs_crash_count_check,
  DROP CONSTRAINT jobs_crash_limit_check,
  DROP CONSTRAINT jobs_snooze_count_check,
  DROP CONSTRAINT jobs_max_snoozes_check,
  DROP CONSTRAINT jobs_timeout_seconds_check,
  DROP CONSTRAINT jobs_backoff_base_ms_check,
  DROP CONSTRAINT jobs_backoff_max_ms_check,
  DROP CONSTRAINT jobs_backoff_jitter_ms_check,
  DROP CONSTRAINT jobs_error_fingerprint_check,
  ALTER COLUMN dead_reason TYPE redrive.dead_reason,
  ALTER COLUMN priority TYPE redrive.job_priority,
  ALTER COLUMN retry_count TYPE redrive.nonnegative_int,
  ALTER COLUMN max_retries TYPE redrive.nonnegative_int,
  ALTER COLUMN attempts TYPE redrive.nonnegative_int,
  ALTER COLUMN lease_expiries TYPE redrive.nonnegative_int,
  ALTER COLUMN crash_count TYPE redrive.nonnegative_int,
  ALTER COLUMN crash_limit TYPE redrive.nonnegative_int,
  ALTER COLUMN snooze_count TYPE redrive.nonnegative_int,
  ALTER COLUMN max_snoozes TYPE redrive.nonnegative_int,
  ALTER COLUMN timeout_seconds TYPE redrive.positive_int,
  ALTER COLUMN backoff_base_ms TYPE redrive.nonnegative_bigint,
  ALTER COLUMN backoff_max_ms TYPE redrive.nonnegative_bigint,
  ALTER COLUMN backoff_jitter_ms TYPE redrive.nonnegative_bigint,
  ALTER COLUMN error_fingerprint TYPE redrive.error_fingerprint;
ALTER DOMAIN redrive.dead_reason ADD CONSTRAINT dead_reason_check CHECK (VALUE IN
  ('max_retries_exceeded','lease_expired','non_retryable','expired')) NOT VALID;
ALTER DOMAIN redrive.job_priority ADD CONSTRAINT job_priority_check
  CHECK (VALUE BETWEEN -100 AND 100) NOT VALID;
ALTER DOMAIN redrive.nonnegative_int ADD CONSTRAINT nonnegative_int_check
  CHECK (VALUE >= 0) NOT VALID;
ALTER DOMAIN redrive.positive_int ADD CONSTRAINT positive_int_check CHECK (VALUE > 0) NOT VALID;
ALTER DOMAIN redrive.nonnegative_bigint ADD CONSTRAINT nonnegative_bigint_check
  CHECK (VALUE >= 0) NOT VALID;
ALTER DOMAIN redrive.error_fingerprint ADD CONSTRAINT error_fingerprint_check
  CHECK (length(VALUE) = 16) NOT VALID;
)sql";

// Version 26: what version 25 left on the table, as one domain. The six
// CHECKs left still cost about 15 µs of every statement that writes a job
// (their text read and planned again), a third of an UPDATE's time. Their
// columns cannot become domains: the checks span columns, and changing the
// type of status or tags would rebuild the large indexes keyed on them. So
// the table keeps one short CHECK that casts a row of the columns the
// invariants read to a domain over that row type, whose named constraints
// are the invariants, planned once per connection. The FieldSelect around
// the cast (status is never NULL) makes the CHECK true whenever the cast
// succeeds: `IS NOT NULL` of the row itself would ask every field to be
// set. A value the invariants refuse fails the cast with 23514, as the
// CHECKs did, naming the domain's constraint.
//
// Statuses added later replace status_is_known: ALTER DOMAIN
// redrive.valid_job_state DROP CONSTRAINT, then ADD CONSTRAINT ... NOT VALID.
//
// No row is rewritten and no index rebuilt (no column changes type), and
// the columns' types stay as they were, so the statements nodes of version
// 25 prepared stay valid. The CHECK is added NOT VALID: every stored row
// passed the same invariants, dropped in this transaction under the table's
// lock.
const char kRowSchema[] = R"sql(
CREATE TYPE redrive.job_state AS (
  status             text COLLATE "C",
  tags               jsonb,
  lease_id           text COLLATE "C",
  lease_expires_at   bigint,
  assigned_worker_id text COLLATE "C",
  deadlettered_at    bigint,
  dead_reason        text COLLATE "C"
);
CREATE DOMAIN redrive.valid_job_state AS redrive.job_state
  CONSTRAINT status_is_known CHECK ((VALUE).status IN
    ('pending','scheduled','processing','completed','deadletter','cancelled','quarantined',
     'blocked'))
  CONSTRAINT tags_are_an_object CHECK (jsonb_typeof((VALUE).tags) = 'object')
  -- A lease exists exactly while the job is processing.
  CONSTRAINT lease_exactly_while_processing CHECK (
    ((VALUE).status = 'processing') = ((VALUE).lease_id IS NOT NULL) AND
    ((VALUE).status = 'processing') = ((VALUE).lease_expires_at IS NOT NULL) AND
    ((VALUE).status = 'processing') = ((VALUE).assigned_worker_id IS NOT NULL))
  CONSTRAINT dead_letter_has_time_and_reason CHECK ((VALUE).status <> 'deadletter' OR
    ((VALUE).deadlettered_at IS NOT NULL AND (VALUE).dead_reason IS NOT NULL));
ALTER TABLE redrive.jobs
  DROP CONSTRAINT jobs_status_check,
  DROP CONSTRAINT jobs_tags_check,
  DROP CONSTRAINT jobs_check,
  DROP CONSTRAINT jobs_check1,
  DROP CONSTRAINT jobs_check2,
  DROP CONSTRAINT jobs_check3,
  ADD CONSTRAINT jobs_state_check CHECK (
    (ROW(status, tags, lease_id, lease_expires_at, assigned_worker_id, deadlettered_at,
         dead_reason)::redrive.valid_job_state).status IS NOT NULL) NOT VALID;
)sql";

}  // namespace redrive::store::postgres::job_checks_sql
