// Where a walk over jobs stands, for work that handles any number of jobs in
// bounded batches (a bulk operation, core/operation.h): jobs are taken in
// creation order, the order the stores' per-status listing index already
// holds (jobs_listing: queue_name, status, created_at, then the tie-breaker),
// so each batch is an index seek from the cursor, never a sort of every job
// that matches. Jobs created in the same microsecond (one request's) are
// taken in the order of the store's tie-breaker: on PostgreSQL their id, on
// SQLite the order they were inserted in (jobs.seq, `seq` here), which the
// ids one request makes follow (core/ids.h). Plain data; Operation::cursor
// keeps it as FormatJobCursor's text.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/job.h"

namespace redrive {

struct JobCursor {
  Instant created_at{};
  std::string id;  // breaks ties of one microsecond where seq is 0 (below)
  // The job's place in the store's insertion order, for a store that breaks
  // ties by it (SQLite's jobs.seq, > 0); 0: ties broken by id (PostgreSQL,
  // and every cursor written before SQLite's schema version 25).
  int64_t seq = 0;
  auto operator<=>(const JobCursor&) const = default;
};

inline JobCursor CursorOf(const Job& job) { return {job.created_at, job.id}; }

// Sorts `jobs` by (created_at, id), keeps the first `limit`: a store with ties
// by id that reads each status apart merges them with it (PostgreSQL).
void KeepFirstByCursor(std::vector<Job>& jobs, size_t limit);

// "<created_at in µs since the epoch>/<id>", or with a seq
// "<created_at>:<seq>/<id>".
std::string FormatJobCursor(const JobCursor& cursor);
// FormatJobCursor's text; nullopt for anything else (e.g. a bare id, the
// cursor's form before version 0.x kept it).
std::optional<JobCursor> ParseJobCursor(std::string_view text);

}  // namespace redrive
