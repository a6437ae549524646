// The planner's statistics of the tables that grow with the jobs (jobs,
// job_history), kept in step with their size (Store::RefreshPlannerStatistics).
//
// Why: a prepared statement runs on a generic plan after its fifth run, made
// with the table's size and row counts as the statistics gave them then, and
// kept until they change. No such plan scans a whole table any more
// (kSessionPlanning, pg_connection.h: every session plans without
// sequential scans where an index serves), but its estimates still choose
// between indexes and join orders, and autovacuum analyzes a table about
// once a minute at most. ANALYZE updates pg_class and invalidates every plan
// that read the table, on every connection of every node, so each is made
// again for the table as it is: a burst of planning on every connection.
//
// When: a table whose file has at least doubled since its statistics were
// taken (pg_class.relpages, which ANALYZE and VACUUM set) and is past
// kPlannerStatisticsMinPages. A plan made for a table is then never used on
// one more than about twice its size, and a table growing without end is
// analyzed a logarithmic number of times; a table that shrinks needs nothing
// (a plan made for a larger table probes the index, which is right at any
// size). Below the floor the doubling would come every second or so on a new
// installation under load (16, 32, 64, 128 pages...), each time making every
// plan again, for estimates that cannot make a plan scan (measured in
// docs/benchmarks.md, "Plans that do not wait for the statistics").
#pragma once

#include <cstdint>

#include "core/status.h"
#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres {

// Below this many 8 KiB pages (8 MiB, about 30,000 jobs of 100-byte
// payloads) a table's statistics are left to autovacuum.
inline constexpr int64_t kPlannerStatisticsMinPages = 1024;

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
