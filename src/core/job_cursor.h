// Where a walk over jobs stands, for work that handles any number of jobs in
// bounded batches (a bulk operation, core/operation.h): jobs are taken in
// (created_at, id) order, the order the stores' per-status listing index
// already holds (jobs_listing: queue_name, status, created_at, id), so each
// batch is an index seek from the cursor, never a sort of every job that
// matches. Plain data; Operation::cursor keeps it as FormatJobCursor's text.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/job.h"

namespace redrive {

struct JobCursor {
  Instant created_at{};
  std::string id;  // breaks ties between jobs created in the same microsecond
  auto operator<=>(const JobCursor&) const = default;
};

inline JobCursor CursorOf(const Job& job) { return {job.created_at, job.id}; }

// Sorts `jobs` by cursor and keeps the first `limit`: a store that reads each
// status apart (each already in cursor order) merges them with it.
void KeepFirstByCursor(std::vector<Job>& jobs, size_t limit);

// "<created_at in µs since the epoch>/<id>".
std::string FormatJobCursor(const JobCursor& cursor);
// FormatJobCursor's text; nullopt for anything else (e.g. a bare id, the
// cursor's form before version 0.x kept it).
std::optional<JobCursor> ParseJobCursor(std::string_view text);

}  // namespace redrive
