#include "store/sqlite/throughput_sql.h"

#include "store/sqlite/query_util.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::throughput_sql {
namespace {

// A row per (interval, node, queue); the queue '' (no queue has that name)
// is a node's "sampled, nothing happened", so a quiet interval still shows.
// A node's second write of one interval and queue (it restarted within the
// interval) adds to the first.
constexpr char kRecord[] =
    "INSERT INTO throughput_samples"
    " (at, node_id, queue_name, enqueued, completed, failed, deadlettered)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (at, node_id, queue_name) DO UPDATE SET"
    " enqueued = enqueued + excluded.enqueued, completed = completed + excluded.completed,"
    " failed = failed + excluded.failed, deadlettered = deadlettered + excluded.deadlettered";
// ?2 NULL: every queue. Walks the primary key from `after`.
constexpr char kRead[] =
    "SELECT at,"
    " SUM(CASE WHEN ?2 IS NULL OR queue_name = ?2 THEN enqueued ELSE 0 END),"
    " SUM(CASE WHEN ?2 IS NULL OR queue_name = ?2 THEN completed ELSE 0 END),"
    " SUM(CASE WHEN ?2 IS NULL OR queue_name = ?2 THEN failed ELSE 0 END),"
    " SUM(CASE WHEN ?2 IS NULL OR queue_name = ?2 THEN deadlettered ELSE 0 END)"
    " FROM throughput_samples WHERE at > ?1 GROUP BY at ORDER BY at";
constexpr char kDeleteBefore[] = "DELETE FROM throughput_samples WHERE at < ?1";

Status InsertRow(Connection& conn, const ThroughputSample& sample, const std::string& queue,
                 const JobCounts& c) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kRecord));
  stmt.Bind(1, sample.at);
  stmt.Bind(2, sample.node_id);
  stmt.Bind(3, queue);
  stmt.Bind(4, static_cast<int64_t>(c.enqueued));
  stmt.Bind(5, static_cast<int64_t>(c.completed));
  stmt.Bind(6, static_cast<int64_t>(c.failed));
  stmt.Bind(7, static_cast<int64_t>(c.deadlettered));
  return stmt.Run();
}

}  // namespace

Result<std::vector<ThroughputPoint>> ReadThroughput(Connection& conn,
                                                    const std::optional<std::string>& queue_name,
                                                    Instant after) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kRead));
  stmt.Bind(1, after);
  stmt.Bind(2, queue_name);
  return CollectRows<ThroughputPoint>(stmt, [](const Statement& s) {
    return ThroughputPoint{s.Time(0), {s.Int64(1), s.Int64(2), s.Int64(3), s.Int64(4)}};
  });
}

Status RecordThroughput(Connection& conn, const ThroughputSample& sample) {
  static const std::string kQuiet;
  if (sample.per_queue.empty()) return InsertRow(conn, sample, kQuiet, {});
  for (const auto& [queue, counts] : sample.per_queue) {
    REDRIVE_RETURN_IF_ERROR(InsertRow(conn, sample, queue, counts));
  }
  return Status::Ok();
}

Result<long long> DeleteThroughputBefore(Connection& conn, Instant before) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteBefore));
  stmt.Bind(1, before);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

}  // namespace redrive::store::sqlite::throughput_sql
