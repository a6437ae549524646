#include "store/sqlite/throughput_sql.h"

#include "store/sqlite/query_util.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::throughput_sql {

// Each node's totals per hour (its start) and queue: the key leads with the
// queue, so one queue's stats read a range of it; the hour index serves the
// all-queue sum and the pruning. A table of nodes x queues x retained hours
// rows, each written at most once per sampling interval.
const char kHourlySchema[] = R"sql(
CREATE TABLE throughput_hourly (
  queue_name    TEXT NOT NULL,
  hour          INTEGER NOT NULL,
  node_id       TEXT NOT NULL,
  enqueued      INTEGER NOT NULL CHECK (enqueued >= 0),
  claimed       INTEGER NOT NULL CHECK (claimed >= 0),
  completed     INTEGER NOT NULL CHECK (completed >= 0),
  failed        INTEGER NOT NULL CHECK (failed >= 0),
  deadlettered  INTEGER NOT NULL CHECK (deadlettered >= 0),
  waiting_us    INTEGER NOT NULL CHECK (waiting_us >= 0),
  processing_us INTEGER NOT NULL CHECK (processing_us >= 0),
  PRIMARY KEY (queue_name, hour, node_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX throughput_hourly_hour ON throughput_hourly (hour);
)sql";

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
constexpr char kRecordHourly[] =
    "INSERT INTO throughput_hourly (queue_name, hour, node_id, enqueued, claimed, completed,"
    " failed, deadlettered, waiting_us, processing_us)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
    " ON CONFLICT (queue_name, hour, node_id) DO UPDATE SET"
    " enqueued = enqueued + excluded.enqueued, claimed = claimed + excluded.claimed,"
    " completed = completed + excluded.completed, failed = failed + excluded.failed,"
    " deadlettered = deadlettered + excluded.deadlettered,"
    " waiting_us = waiting_us + excluded.waiting_us,"
    " processing_us = processing_us + excluded.processing_us";
#define REDRIVE_SUM_HOURLY                                                                     \
  "SELECT coalesce(sum(enqueued), 0), coalesce(sum(claimed), 0), coalesce(sum(completed), 0)," \
  " coalesce(sum(failed), 0), coalesce(sum(deadlettered), 0), coalesce(sum(waiting_us), 0),"   \
  " coalesce(sum(processing_us), 0) FROM throughput_hourly"
// One queue: a range of the key; all queues: a range of the hour index.
constexpr char kSumHourlyOfQueue[] = REDRIVE_SUM_HOURLY " WHERE queue_name = ?2 AND hour >= ?1";
constexpr char kSumHourlyOfAll[] = REDRIVE_SUM_HOURLY " WHERE hour >= ?1";
#undef REDRIVE_SUM_HOURLY
constexpr char kDeleteHourlyBefore[] = "DELETE FROM throughput_hourly WHERE hour < ?1";

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

Status AddToHour(Connection& conn, const ThroughputSample& sample, const std::string& queue,
                 const JobCounts& c) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kRecordHourly));
  stmt.Bind(1, queue);
  stmt.Bind(2, HourOfInterval(sample.at));
  stmt.Bind(3, sample.node_id);
  stmt.Bind(4, static_cast<int64_t>(c.enqueued));
  stmt.Bind(5, static_cast<int64_t>(c.claimed));
  stmt.Bind(6, static_cast<int64_t>(c.completed));
  stmt.Bind(7, static_cast<int64_t>(c.failed));
  stmt.Bind(8, static_cast<int64_t>(c.deadlettered));
  stmt.Bind(9, static_cast<int64_t>(c.waiting.count()));
  stmt.Bind(10, static_cast<int64_t>(c.processing.count()));
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
    REDRIVE_RETURN_IF_ERROR(AddToHour(conn, sample, queue, counts));
  }
  return Status::Ok();
}

Result<JobCounts> SumHourly(Connection& conn, const std::optional<std::string>& queue_name,
                            Instant from_hour) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt,
                           conn.Prepare(queue_name ? kSumHourlyOfQueue : kSumHourlyOfAll));
  stmt.Bind(1, from_hour);
  if (queue_name) stmt.Bind(2, *queue_name);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Internal("an aggregate returned no row");
  JobCounts c;
  c.enqueued = stmt.Int64(0);
  c.claimed = stmt.Int64(1);
  c.completed = stmt.Int64(2);
  c.failed = stmt.Int64(3);
  c.deadlettered = stmt.Int64(4);
  c.waiting = std::chrono::microseconds(stmt.Int64(5));
  c.processing = std::chrono::microseconds(stmt.Int64(6));
  return c;
}

Result<long long> DeleteHourlyBefore(Connection& conn, Instant before) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteHourlyBefore));
  stmt.Bind(1, before);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

Result<long long> DeleteThroughputBefore(Connection& conn, Instant before) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteBefore));
  stmt.Bind(1, before);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

}  // namespace redrive::store::sqlite::throughput_sql
