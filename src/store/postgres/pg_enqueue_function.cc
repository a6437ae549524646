#include "store/postgres/pg_enqueue_function.h"

#include <string_view>
#include <utility>
#include <vector>

#include "core/queue.h"
#include "store/postgres/pg_schema.h"
#include "store/postgres/pg_wake_channel.h"

namespace redrive::store::postgres {
namespace {

// The function, with {{NAME}} for the limits and defaults of this binary.
// What it mirrors: api/field_rules.cc (the bounds and their messages),
// core/new_job.cc (MakeNewJob) and core/transition.cc (CreatedHistory),
// PgWriteTx::EnsureQueue and InsertJob. pg_enqueue_function_test compares
// its rows with the store's own for the same inputs.
//
// Errors: SQLSTATE 22023 (invalid_parameter_value) for a bad argument,
// 54000 (program_limit_exceeded) for one too large, 55000
// (object_not_in_prerequisite_state) for a disabled queue; each message
// names the argument. Every object is schema-qualified: the search_path is
// pinned so that an application's own tables or functions cannot stand in.
constexpr std::string_view kTemplate = R"sql(
-- A UUIDv7 text like core's NewUuidV7: 48 bits of milliseconds, then random
-- bits with the version (7) and variant (10) set.
CREATE OR REPLACE FUNCTION redrive.uuid_v7(at_us bigint) RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $redrive_uuid$
DECLARE
  v_bytes bytea := uuid_send(gen_random_uuid());
BEGIN
  v_bytes := overlay(v_bytes PLACING substring(int8send(at_us / 1000) FROM 3) FROM 1 FOR 6);
  v_bytes := set_byte(v_bytes, 6, (get_byte(v_bytes, 6) & 15) | 112);
  RETURN encode(v_bytes, 'hex')::uuid::text;
END
$redrive_uuid$;

CREATE OR REPLACE FUNCTION redrive.enqueue(
  queue_name      text,
  payload         jsonb,
  priority        integer     DEFAULT 0,
  max_retries     integer     DEFAULT NULL,
  timeout_seconds integer     DEFAULT NULL,
  scheduled_at    timestamptz DEFAULT NULL,
  idempotency_key text        DEFAULT NULL,
  tags            jsonb       DEFAULT '{}',
  expires_at      timestamptz DEFAULT NULL
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $redrive_enqueue$
#variable_conflict use_variable
DECLARE
  -- The job's time is when this statement runs, not when the transaction
  -- began: that is when the application asked.
  v_us      bigint := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
  v_tags    jsonb := coalesce(tags, '{}'::jsonb);
  v_payload text;
  v_q       redrive.queues%ROWTYPE;
  v_run     bigint;
  v_expires bigint;
  v_status  text;
  v_id      text;
  v_details text;
  v_key     text;
  v_value   jsonb;
BEGIN
  IF queue_name IS NULL
     OR queue_name COLLATE "C" !~ '^[A-Za-z0-9_][A-Za-z0-9._-]{0,{{MAX_QUEUE_NAME_MINUS_1}}}$' THEN
    RAISE EXCEPTION 'redrive.enqueue: queue_name must be 1-{{MAX_QUEUE_NAME}} characters of [A-Za-z0-9._-], not starting with ''.'' or ''-'''
      USING ERRCODE = '22023';
  END IF;
  IF payload IS NULL THEN
    RAISE EXCEPTION 'redrive.enqueue: payload is required' USING ERRCODE = '22023';
  END IF;
  v_payload := payload::text;
  IF octet_length(v_payload) > {{MAX_PAYLOAD_BYTES}} THEN
    RAISE EXCEPTION 'redrive.enqueue: payload exceeds {{MAX_PAYLOAD_BYTES}} bytes serialized'
      USING ERRCODE = '54000';
  END IF;
  IF priority IS NULL OR priority NOT BETWEEN {{MIN_PRIORITY}} AND {{MAX_PRIORITY}} THEN
    RAISE EXCEPTION 'redrive.enqueue: priority must be an integer in [{{MIN_PRIORITY}}, {{MAX_PRIORITY}}]'
      USING ERRCODE = '22023';
  END IF;
  IF max_retries NOT BETWEEN {{MIN_MAX_RETRIES}} AND {{MAX_MAX_RETRIES}} THEN
    RAISE EXCEPTION 'redrive.enqueue: max_retries must be an integer in [{{MIN_MAX_RETRIES}}, {{MAX_MAX_RETRIES}}]'
      USING ERRCODE = '22023';
  END IF;
  IF timeout_seconds NOT BETWEEN {{MIN_TIMEOUT}} AND {{MAX_TIMEOUT}} THEN
    RAISE EXCEPTION 'redrive.enqueue: timeout_seconds must be an integer in [{{MIN_TIMEOUT}}, {{MAX_TIMEOUT}}]'
      USING ERRCODE = '22023';
  END IF;
  IF idempotency_key IS NOT NULL
     AND (idempotency_key = '' OR octet_length(idempotency_key) > {{MAX_IDEMPOTENCY_KEY}}) THEN
    RAISE EXCEPTION 'redrive.enqueue: idempotency_key must be 1-{{MAX_IDEMPOTENCY_KEY}} bytes'
      USING ERRCODE = '22023';
  END IF;
  IF jsonb_typeof(v_tags) <> 'object' THEN
    RAISE EXCEPTION 'redrive.enqueue: tags must be an object of strings' USING ERRCODE = '22023';
  END IF;
  IF (SELECT count(*) FROM jsonb_object_keys(v_tags)) > {{MAX_TAGS}} THEN
    RAISE EXCEPTION 'redrive.enqueue: tags has more than {{MAX_TAGS}} entries' USING ERRCODE = '54000';
  END IF;
  FOR v_key, v_value IN SELECT e.key, e.value FROM jsonb_each(v_tags) AS e LOOP
    IF jsonb_typeof(v_value) <> 'string' THEN
      RAISE EXCEPTION 'redrive.enqueue: tags.% must be a string', v_key USING ERRCODE = '22023';
    END IF;
    IF octet_length(v_key) > {{MAX_TAG_KEY_BYTES}} THEN
      RAISE EXCEPTION 'redrive.enqueue: tag key % exceeds {{MAX_TAG_KEY_BYTES}} bytes', v_key
        USING ERRCODE = '54000';
    END IF;
    IF octet_length(v_value #>> '{}') > {{MAX_TAG_VALUE_BYTES}} THEN
      RAISE EXCEPTION 'redrive.enqueue: tags.% exceeds {{MAX_TAG_VALUE_BYTES}} bytes', v_key
        USING ERRCODE = '54000';
    END IF;
  END LOOP;
  -- Serialized as {"k":"v",...}, as the API measures it.
  IF 2 + coalesce((SELECT sum(octet_length(to_json(e.key)::text) + 1 + octet_length(e.value::text) + 1)
                     FROM jsonb_each(v_tags) AS e), 1) - 1 > {{MAX_TAGS_BYTES}} THEN
    RAISE EXCEPTION 'redrive.enqueue: tags exceeds {{MAX_TAGS_BYTES}} bytes serialized'
      USING ERRCODE = '54000';
  END IF;
  IF expires_at IS NOT NULL THEN
    v_expires := (extract(epoch FROM expires_at) * 1000000)::bigint;
    IF v_expires <= v_us THEN
      RAISE EXCEPTION 'redrive.enqueue: expires_at must be in the future' USING ERRCODE = '22023';
    END IF;
  END IF;

  -- A replay answers with the existing job whatever has happened to the
  -- queue since (as the API does).
  IF idempotency_key IS NOT NULL THEN
    SELECT j.id INTO v_id FROM redrive.jobs AS j WHERE j.idempotency_key = enqueue.idempotency_key;
    IF FOUND THEN RETURN v_id::uuid; END IF;
  END IF;

  -- A new queue: creations take turns (the lock EnsureQueue takes too), so
  -- the count, made after the lock, is exact.
  IF NOT EXISTS (SELECT 1 FROM redrive.queues AS q WHERE q.queue_name = enqueue.queue_name) THEN
    PERFORM pg_advisory_xact_lock({{QUEUE_CREATION_LOCK}});
    IF NOT EXISTS (SELECT 1 FROM redrive.queues AS q WHERE q.queue_name = enqueue.queue_name)
       AND (SELECT count(*) FROM redrive.queues) >= {{MAX_QUEUES}} THEN
      RAISE EXCEPTION 'redrive.enqueue: cannot create queue %: the database already holds {{MAX_QUEUES}} queues, the server''s limit (--max-queues)', queue_name
        USING ERRCODE = '54000';
    END IF;
  END IF;
  INSERT INTO redrive.queues AS q (queue_name, max_retries, default_timeout, enabled, paused,
      paused_reason, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, retention_completed_s,
      retention_deadletter_s, retention_cancelled_s, created_at, updated_at)
    VALUES (queue_name, {{QUEUE_MAX_RETRIES}}, {{QUEUE_TIMEOUT}}, true, false, NULL,
      {{QUEUE_BACKOFF_BASE}}, {{QUEUE_BACKOFF_MAX}}, {{QUEUE_BACKOFF_JITTER}},
      {{QUEUE_RETENTION_COMPLETED}}, {{QUEUE_RETENTION_DEADLETTER}}, {{QUEUE_RETENTION_CANCELLED}},
      v_us, v_us)
    ON CONFLICT ON CONSTRAINT queues_pkey DO NOTHING;
  SELECT * INTO v_q FROM redrive.queues AS q WHERE q.queue_name = enqueue.queue_name;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'redrive.enqueue: queue % was deleted while being created', queue_name
      USING ERRCODE = '40001';
  END IF;
  IF NOT v_q.enabled THEN
    RAISE EXCEPTION 'redrive.enqueue: queue % is disabled', queue_name USING ERRCODE = '55000';
  END IF;

  v_run := coalesce((extract(epoch FROM scheduled_at) * 1000000)::bigint, v_us);
  v_status := CASE WHEN v_run > v_us THEN 'scheduled' ELSE 'pending' END;

  v_id := redrive.uuid_v7(v_us);

  INSERT INTO redrive.jobs AS j (id, queue_name, status, payload, priority, retry_count,
      max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, tags,
      idempotency_key, created_at, updated_at, scheduled_at, expires_at, crash_limit, max_snoozes)
    VALUES (v_id, queue_name, v_status, v_payload, priority, 0,
      coalesce(max_retries, v_q.max_retries), coalesce(timeout_seconds, v_q.default_timeout),
      v_q.backoff_base_ms, v_q.backoff_max_ms, v_q.backoff_jitter_ms, v_tags,
      idempotency_key, v_us, v_us, v_run, v_expires, v_q.crash_limit, v_q.max_snoozes)
    ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    -- A concurrent enqueue took the key first; ON CONFLICT waited for it.
    -- (Without a key only a random id's collision gets here: run again.)
    IF idempotency_key IS NULL THEN
      RAISE EXCEPTION 'redrive.enqueue: job id % is taken', v_id USING ERRCODE = '40001';
    END IF;
    SELECT j.id INTO v_id FROM redrive.jobs AS j WHERE j.idempotency_key = enqueue.idempotency_key;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'redrive.enqueue: idempotency key % changed hands', idempotency_key
        USING ERRCODE = '40001';
    END IF;
    RETURN v_id::uuid;
  END IF;

  v_details := '{"queue_name":' || to_json(queue_name)::text;
  IF v_status = 'scheduled' THEN
    v_details := v_details || ',"scheduled_at":"' ||
      to_char(to_timestamp(v_run / 1000 / 1000.0) AT TIME ZONE 'UTC',
              'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"';
  END IF;
  v_details := v_details || '}';
  -- node_id NULL: the application's transaction wrote it, not a node.
  INSERT INTO redrive.job_history (id, job_id, event_type, worker_id, details, created_at,
                                   node_id)
    VALUES (redrive.uuid_v7(v_us), v_id, 'created', NULL, v_details, v_us, NULL);
  -- Its counter, in the shard of this backend, as PgWriteTx counts its jobs
  -- (the constraint by name: queue_name is also a parameter here).
  INSERT INTO redrive.job_counts AS c (queue_name, status, shard, n)
    VALUES (enqueue.queue_name, v_status, pg_backend_pid() % 64, 1)
    ON CONFLICT ON CONSTRAINT job_counts_pkey DO UPDATE SET n = c.n + 1;

  -- Delivered when (and only if) the caller's transaction commits.
  PERFORM pg_notify('{{WAKE_CHANNEL}}', 'sql ' || queue_name);
  RETURN v_id::uuid;
END
$redrive_enqueue$;
COMMENT ON FUNCTION redrive.enqueue(text, jsonb, integer, integer, integer, timestamptz, text,
                                    jsonb, timestamptz) IS
  'Enqueues a Redrive job in the caller''s transaction; returns its id. Installed by redrive serve.';
)sql";

std::string SecondsOrNull(const std::optional<std::chrono::seconds>& s) {
  return s ? std::to_string(s->count()) : "NULL";
}

}  // namespace

std::string EnqueueFunctionSql(const ServerLimits& limits) {
  const QueueConfig queue;  // what EnsureQueue creates
  const std::vector<std::pair<std::string_view, std::string>> values = {
      {"MAX_QUEUE_NAME_MINUS_1", std::to_string(kMaxQueueNameLength - 1)},
      {"MAX_QUEUE_NAME", std::to_string(kMaxQueueNameLength)},
      {"MAX_PAYLOAD_BYTES", std::to_string(limits.max_payload_bytes)},
      {"MIN_PRIORITY", std::to_string(kMinPriority)},
      {"MAX_PRIORITY", std::to_string(kMaxPriority)},
      {"MIN_MAX_RETRIES", std::to_string(kMinMaxRetries)},
      {"MAX_MAX_RETRIES", std::to_string(kMaxMaxRetries)},
      {"MIN_TIMEOUT", std::to_string(kMinTimeoutSeconds)},
      {"MAX_TIMEOUT", std::to_string(kMaxTimeoutSeconds)},
      {"MAX_IDEMPOTENCY_KEY", std::to_string(kMaxIdempotencyKeyLength)},
      {"MAX_TAGS", std::to_string(limits.max_tags)},
      {"MAX_TAG_KEY_BYTES", std::to_string(limits.max_tag_key_bytes)},
      {"MAX_TAG_VALUE_BYTES", std::to_string(limits.max_tag_value_bytes)},
      {"MAX_TAGS_BYTES", std::to_string(limits.max_tags_bytes)},
      {"QUEUE_MAX_RETRIES", std::to_string(queue.max_retries)},
      {"QUEUE_TIMEOUT", std::to_string(queue.default_timeout)},
      {"QUEUE_BACKOFF_BASE", std::to_string(queue.backoff.base.count())},
      {"QUEUE_BACKOFF_MAX", std::to_string(queue.backoff.max.count())},
      {"QUEUE_BACKOFF_JITTER", std::to_string(queue.backoff.jitter.count())},
      {"QUEUE_RETENTION_COMPLETED", SecondsOrNull(queue.retention.completed)},
      {"QUEUE_RETENTION_DEADLETTER", SecondsOrNull(queue.retention.deadletter)},
      {"QUEUE_RETENTION_CANCELLED", SecondsOrNull(queue.retention.cancelled)},
      {"WAKE_CHANNEL", kWakeChannelName},
      {"MAX_QUEUES", std::to_string(limits.max_queues)},
      {"QUEUE_CREATION_LOCK", std::to_string(kQueueCreationLockKey)},
  };
  std::string out;
  out.reserve(kTemplate.size() + 256);
  size_t pos = 0;
  while (pos < kTemplate.size()) {
    const size_t open = kTemplate.find("{{", pos);
    if (open == std::string_view::npos) {
      out.append(kTemplate.substr(pos));
      break;
    }
    out.append(kTemplate.substr(pos, open - pos));
    const size_t close = kTemplate.find("}}", open);
    const std::string_view name = kTemplate.substr(open + 2, close - open - 2);
    bool found = false;
    for (const auto& [key, value] : values) {
      if (key == name) {
        out += value;
        found = true;
        break;
      }
    }
    if (!found) out.append(kTemplate.substr(open, close + 2 - open));  // a test catches it
    pos = close + 2;
  }
  return out;
}

Status PgInstallFunctions(PgConnection& conn, const ServerLimits& limits) {
  REDRIVE_RETURN_IF_ERROR(conn.Exec("BEGIN").status());
  Status st =
      conn.Exec("SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLockKey) + ")").status();
  if (st.ok()) st = conn.Exec(EnqueueFunctionSql(limits)).status();
  if (st.ok()) st = conn.Exec("COMMIT").status();
  if (!st.ok()) {
    (void)conn.Exec("ROLLBACK");
    return Status(st.code(), "installing redrive.enqueue: " + st.message());
  }
  return Status::Ok();
}

}  // namespace redrive::store::postgres
