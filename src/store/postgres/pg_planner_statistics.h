// The planner's statistics of the tables that grow with the jobs (jobs,
// job_history), kept in step with their size (Store::RefreshPlannerStatistics).
//
// Why: a prepared statement runs on a generic plan after its fifth run, made
// with the table's size as the statistics gave it then, and kept until they
// change. A set-based update prepared while `jobs` held a few hundred rows
// joins its rows to a scan of the whole table (cheaper than an index probe
// per row at that size), and keeps doing so as the table grows: 2-3 ms a
// statement at 5,000 jobs, growing with every job, until autovacuum
// analyzes the table (it looks about once a minute). ANALYZE updates
// pg_class and invalidates every plan that read the table, on every
// connection of every node, so each is made again for the table as it is.
//
// When: a table whose file has at least doubled since its statistics were
// taken (pg_class.relpages, which ANALYZE and VACUUM set) and is past a few
// pages. A plan made for a table is then never used on one more than about
// twice its size, and a table growing without end is analyzed a logarithmic
// number of times; a table that shrinks needs nothing (a plan made for a
// larger table probes the index, which is right at any size).
#pragma once

#include <cstdint>

#include "core/status.h"
#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres {

// Below this many 8 KiB pages a table is left to autovacuum: any plan is cheap.
inline constexpr int64_t kPlannerStatisticsMinPages = 16;

// How long the ANALYZE waits for a table another session holds (a vacuum):
// then it gives up, answering kFresh, and is asked again at the next pass.
inline constexpr int kPlannerStatisticsLockTimeoutMs = 100;

// Whether a table of `pages_now` pages, whose statistics were taken at
// `pages_analyzed` pages (0: never), needs them taken again.
bool PlannerStatisticsStale(int64_t pages_analyzed, int64_t pages_now);

// Reads the sizes of the tables and their sizes at the last statistics
// (one catalog query, in the connection's current transaction or none):
// the result's rows are (what the table's ANALYZE takes: the table and the
// columns, pages_analyzed, pages_now).
extern const char kPlannerStatisticsCheck[];

// ANALYZEs the tables of `check` (kPlannerStatisticsCheck's result) that
// are stale, on `conn` outside any transaction: their size and the columns
// the job queries filter or join on, not the others (the payload's, say).
// An ANALYZE samples at most
// 30,000 rows: on a large table, cold, it may take a second or two; large
// tables double rarely, and autovacuum analyzes them at every 2 % changed.
Result<PlannerStatistics> RefreshStalePlannerStatistics(PgConnection& conn, const PgResult& check);

}  // namespace redrive::store::postgres
