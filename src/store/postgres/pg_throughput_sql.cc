#include "store/postgres/pg_throughput_sql.h"

namespace redrive::store::postgres::throughput_sql {

// Each node's totals per hour (its start, microseconds) and queue: the key
// leads with the queue, so one queue's stats read a range of it; the hour
// index serves the all-queue sum and the pruning. A table of nodes x queues
// x retained hours rows, each written at most once per sampling interval by
// its own node only.
const char kHourlySchema[] = R"sql(
CREATE TABLE redrive.throughput_hourly (
  queue_name    text COLLATE "C" NOT NULL,
  hour          bigint NOT NULL,
  node_id       text COLLATE "C" NOT NULL,
  enqueued      bigint NOT NULL CHECK (enqueued >= 0),
  claimed       bigint NOT NULL CHECK (claimed >= 0),
  completed     bigint NOT NULL CHECK (completed >= 0),
  failed        bigint NOT NULL CHECK (failed >= 0),
  deadlettered  bigint NOT NULL CHECK (deadlettered >= 0),
  waiting_us    bigint NOT NULL CHECK (waiting_us >= 0),
  processing_us bigint NOT NULL CHECK (processing_us >= 0),
  PRIMARY KEY (queue_name, hour, node_id)
);
CREATE INDEX throughput_hourly_hour ON redrive.throughput_hourly (hour);
)sql";

namespace {

// $1 at, $2 node id, $3..$10 parallel arrays (queue names, then the seven
// counts), $11 the hour: a row per (interval, node, queue), all of one
// sample in one statement, which also adds the counts to the node's hourly
// totals. The queue '' (no queue has that name) is a node's "sampled,
// nothing happened", so a quiet interval still shows; it has no hourly row.
// A node's second write of one interval or hour and queue (it restarted
// within it, or the next interval of the hour) adds to the first.
constexpr char kRecord[] =
    "WITH u AS (SELECT * FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::bigint[],"
    " $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[]) AS u(q, e, cl, c, f, d, w, p)),"
    " samples AS (INSERT INTO redrive.throughput_samples AS t"
    " (at, node_id, queue_name, enqueued, completed, failed, deadlettered)"
    " SELECT $1::bigint, $2::text, q, e, c, f, d FROM u"
    " ON CONFLICT (at, node_id, queue_name) DO UPDATE SET"
    " enqueued = t.enqueued + excluded.enqueued, completed = t.completed + excluded.completed,"
    " failed = t.failed + excluded.failed, deadlettered = t.deadlettered + excluded.deadlettered)"
    " INSERT INTO redrive.throughput_hourly AS h (queue_name, hour, node_id, enqueued, claimed,"
    " completed, failed, deadlettered, waiting_us, processing_us)"
    " SELECT q, $11::bigint, $2::text, e, cl, c, f, d, w, p FROM u WHERE q <> ''"
    " ON CONFLICT (queue_name, hour, node_id) DO UPDATE SET"
    " enqueued = h.enqueued + excluded.enqueued, claimed = h.claimed + excluded.claimed,"
    " completed = h.completed + excluded.completed, failed = h.failed + excluded.failed,"
    " deadlettered = h.deadlettered + excluded.deadlettered,"
    " waiting_us = h.waiting_us + excluded.waiting_us,"
    " processing_us = h.processing_us + excluded.processing_us";
#define REDRIVE_PG_SUM_HOURLY                                                      \
  "SELECT coalesce(sum(enqueued), 0)::bigint, coalesce(sum(claimed), 0)::bigint,"  \
  " coalesce(sum(completed), 0)::bigint, coalesce(sum(failed), 0)::bigint,"        \
  " coalesce(sum(deadlettered), 0)::bigint, coalesce(sum(waiting_us), 0)::bigint," \
  " coalesce(sum(processing_us), 0)::bigint FROM redrive.throughput_hourly"
// One queue: a range of the key; all queues: a range of the hour index.
constexpr char kSumHourlyOfQueue[] = REDRIVE_PG_SUM_HOURLY " WHERE queue_name = $2 AND hour >= $1";
constexpr char kSumHourlyOfAll[] = REDRIVE_PG_SUM_HOURLY " WHERE hour >= $1";
#undef REDRIVE_PG_SUM_HOURLY
constexpr char kDeleteHourlyBefore[] = "DELETE FROM redrive.throughput_hourly WHERE hour < $1";
// $2 NULL: every queue. Walks the primary key from `after`.
constexpr char kRead[] =
    "SELECT at,"
    " SUM(CASE WHEN $2::text IS NULL OR queue_name = $2 THEN enqueued ELSE 0 END)::bigint,"
    " SUM(CASE WHEN $2::text IS NULL OR queue_name = $2 THEN completed ELSE 0 END)::bigint,"
    " SUM(CASE WHEN $2::text IS NULL OR queue_name = $2 THEN failed ELSE 0 END)::bigint,"
    " SUM(CASE WHEN $2::text IS NULL OR queue_name = $2 THEN deadlettered ELSE 0 END)::bigint"
    " FROM redrive.throughput_samples WHERE at > $1 GROUP BY at ORDER BY at";
constexpr char kDeleteBefore[] = "DELETE FROM redrive.throughput_samples WHERE at < $1";

// A bigint[] literal: {1,2,3}.
std::string IntArray(const std::vector<long long>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  return out + "}";
}

}  // namespace

Result<std::vector<ThroughputPoint>> ReadThroughput(PgConnection& conn,
                                                    const std::optional<std::string>& queue_name,
                                                    Instant after) {
  PgParams p;
  p.Add(after);
  p.AddRef(queue_name);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kRead, p));
  std::vector<ThroughputPoint> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back({r.Time(i, 0), {r.Int64(i, 1), r.Int64(i, 2), r.Int64(i, 3), r.Int64(i, 4)}});
  }
  return out;
}

Status RecordThroughput(PgConnection& conn, const ThroughputSample& sample) {
  std::vector<std::string> queues;
  std::vector<long long> enqueued, claimed, completed, failed, deadlettered, waiting, processing;
  for (const auto& [queue, c] : sample.per_queue) {
    queues.push_back(queue);
    enqueued.push_back(c.enqueued);
    claimed.push_back(c.claimed);
    completed.push_back(c.completed);
    failed.push_back(c.failed);
    deadlettered.push_back(c.deadlettered);
    waiting.push_back(c.waiting.count());
    processing.push_back(c.processing.count());
  }
  std::vector<long long>* counts[] = {&enqueued,     &claimed, &completed, &failed,
                                      &deadlettered, &waiting, &processing};
  if (queues.empty()) {
    queues.emplace_back();
    for (auto* v : counts) v->push_back(0);
  }
  PgParams p;
  p.Add(sample.at);
  p.AddRef(sample.node_id);
  p.AddTextArray(queues);
  for (const auto* v : counts) p.Add(IntArray(*v));
  p.Add(HourOfInterval(sample.at));
  return conn.ExecPrepared(kRecord, p).status();
}

Result<JobCounts> SumHourly(PgConnection& conn, const std::optional<std::string>& queue_name,
                            Instant from_hour) {
  PgParams p;
  p.Add(from_hour);
  if (queue_name) p.AddRef(*queue_name);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r,
                           conn.ExecPrepared(queue_name ? kSumHourlyOfQueue : kSumHourlyOfAll, p));
  if (r.rows() != 1) return Status::Internal("an aggregate returned no row");
  JobCounts c;
  c.enqueued = r.Int64(0, 0);
  c.claimed = r.Int64(0, 1);
  c.completed = r.Int64(0, 2);
  c.failed = r.Int64(0, 3);
  c.deadlettered = r.Int64(0, 4);
  c.waiting = std::chrono::microseconds(r.Int64(0, 5));
  c.processing = std::chrono::microseconds(r.Int64(0, 6));
  return c;
}

Result<long long> DeleteHourlyBefore(PgConnection& conn, Instant before) {
  PgParams p;
  p.Add(before);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteHourlyBefore, p));
  return r.affected();
}

Result<long long> DeleteThroughputBefore(PgConnection& conn, Instant before) {
  PgParams p;
  p.Add(before);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteBefore, p));
  return r.affected();
}

}  // namespace redrive::store::postgres::throughput_sql
