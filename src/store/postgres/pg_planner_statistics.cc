#include "store/postgres/pg_planner_statistics.h"

#include <string>

namespace redrive::store::postgres {

bool PlannerStatisticsStale(int64_t pages_analyzed, int64_t pages_now) {
  if (pages_now < kPlannerStatisticsMinPages) return false;
  return pages_now >= 2 * pages_analyzed;
}

// One row per table the refresh keeps, naming what its ANALYZE takes: the
// table's size (which is what makes the plans again) and the columns the
// job queries filter or join on. Not every column: a sample's statistics of
// the payload, result, history details and the rest cost most of an ANALYZE
// (up to a tenth of a second of a core on a table of 20,000 jobs) and change
// no plan of ours; autovacuum's ANALYZE keeps them (one that names columns
// leaves the count of changed rows that schedules it as it was).
const char kPlannerStatisticsCheck[] =
    "SELECT t.target, c.relpages, pg_relation_size(c.oid) / current_setting('block_size')::int"
    " FROM (VALUES ('jobs', 'redrive.jobs (id, queue_name, status)'),"
    " ('job_history', 'redrive.job_history (job_id)')) AS t(name, target)"
    " JOIN pg_class AS c ON c.relname = t.name"
    " JOIN pg_namespace AS n ON n.oid = c.relnamespace AND n.nspname = 'redrive'"
    " ORDER BY t.name";

Result<PlannerStatistics> RefreshStalePlannerStatistics(PgConnection& conn, const PgResult& check) {
  std::string tables;
  for (int i = 0; i < check.rows(); ++i) {
    if (!PlannerStatisticsStale(check.Int64(i, 1), check.Int64(i, 2))) continue;
    tables += tables.empty() ? "" : ", ";
    tables += check.String(i, 0);  // the ANALYZE target the check names
  }
  if (tables.empty()) return PlannerStatistics::kFresh;
  // The lock timeout in a transaction of its own, so that it is the
  // ANALYZE's alone: a vacuum holding the table (autovacuum's, say) would
  // otherwise hold the caller, the background loop, until it ends. Such a
  // vacuum sets the statistics' page count itself when it is done.
  conn.ClearLastError();
  auto analyzed = conn.Exec("BEGIN; SET LOCAL lock_timeout = '" +
                            std::to_string(kPlannerStatisticsLockTimeoutMs) + "ms'; ANALYZE " +
                            tables + "; COMMIT");
  if (analyzed.ok()) return PlannerStatistics::kRefreshed;
  const bool busy = conn.last_sqlstate() == "55P03";  // lock_not_available
  if (conn.healthy() && conn.InTransaction()) (void)conn.Exec("ROLLBACK");
  if (busy) return PlannerStatistics::kFresh;  // asked again in a second
  return analyzed.status();
}

}  // namespace redrive::store::postgres
