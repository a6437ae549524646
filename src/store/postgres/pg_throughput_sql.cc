#include "store/postgres/pg_throughput_sql.h"

namespace redrive::store::postgres::throughput_sql {
namespace {

// $1 at, $2 node id, $3..$7 parallel arrays (queue names, then the four
// counts): a row per (interval, node, queue), all of one sample in one
// statement. The queue '' (no queue has that name) is a node's "sampled,
// nothing happened", so a quiet interval still shows. A node's second write
// of one interval and queue (it restarted within the interval) adds to the
// first.
constexpr char kRecord[] =
    "INSERT INTO redrive.throughput_samples AS t"
    " (at, node_id, queue_name, enqueued, completed, failed, deadlettered)"
    " SELECT $1::bigint, $2::text, q, e, c, f, d"
    " FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])"
    " AS u(q, e, c, f, d)"
    " ON CONFLICT (at, node_id, queue_name) DO UPDATE SET"
    " enqueued = t.enqueued + excluded.enqueued, completed = t.completed + excluded.completed,"
    " failed = t.failed + excluded.failed, deadlettered = t.deadlettered + excluded.deadlettered";
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
  std::vector<long long> enqueued, completed, failed, deadlettered;
  for (const auto& [queue, c] : sample.per_queue) {
    queues.push_back(queue);
    enqueued.push_back(c.enqueued);
    completed.push_back(c.completed);
    failed.push_back(c.failed);
    deadlettered.push_back(c.deadlettered);
  }
  if (queues.empty()) {
    queues.emplace_back();
    for (auto* v : {&enqueued, &completed, &failed, &deadlettered}) v->push_back(0);
  }
  PgParams p;
  p.Add(sample.at);
  p.AddRef(sample.node_id);
  p.AddTextArray(queues);
  for (const auto* v : {&enqueued, &completed, &failed, &deadlettered}) p.Add(IntArray(*v));
  return conn.ExecPrepared(kRecord, p).status();
}

Result<long long> DeleteThroughputBefore(PgConnection& conn, Instant before) {
  PgParams p;
  p.Add(before);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteBefore, p));
  return r.affected();
}

}  // namespace redrive::store::postgres::throughput_sql
