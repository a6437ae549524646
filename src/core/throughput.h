// Job throughput per sampling interval, for the console's chart
// (GET /api/v1/throughput): per interval and queue, how many jobs were
// enqueued, completed, failed (attempts) and dead-lettered. Each node samples
// its own counters (engine/services/throughput_sampler.h) and records its
// samples in the store, which sums them over the nodes when read. The store
// also adds every sample into hourly totals per queue, which carry the
// attempts' times too: the 24-hour queue stats (GET /queues/{name}/stats,
// GET /dashboard) sum those, a few rows per queue whatever the job count.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "core/clock.h"

namespace redrive {

// Job event counts, either running totals since start or one interval's worth.
struct JobCounts {
  long long enqueued = 0;
  long long completed = 0;
  long long failed = 0;
  long long deadlettered = 0;
  // Kept in the hourly totals only (the interval samples leave them 0):
  // attempts started (claims), the time those claims' jobs waited from due
  // to claimed, and the time completed attempts took from claim to complete.
  long long claimed = 0;
  std::chrono::microseconds waiting{0};
  std::chrono::microseconds processing{0};

  JobCounts& operator+=(const JobCounts& o);
  JobCounts operator-(const JobCounts& o) const;
  bool empty() const { return *this == JobCounts{}; }
  bool operator==(const JobCounts&) const = default;
};

// One interval ending at `at`, summed over the queues (and nodes) asked for.
struct ThroughputPoint {
  Instant at;
  JobCounts counts;
  bool operator==(const ThroughputPoint&) const = default;
};

// What one node did in the interval ending at `at` (a multiple of the
// sampling interval since the epoch), per queue.
struct ThroughputSample {
  std::string node_id;
  Instant at;
  std::map<std::string, JobCounts> per_queue;
};

// The hour (since the epoch) that holds the sampling interval ending at
// `interval_end`: the bucket of the hourly totals a sample adds to.
Instant HourOfInterval(Instant interval_end);

// The 24-hour stats count whole hours of the hourly totals: the hour that
// holds `now` and the 23 before it (between 23 and 24 hours, and as of the
// nodes' last samples). The first of those hours.
Instant FirstHourOfLastDay(Instant now);
// How long the hourly totals are kept: a day of them plus the hour being
// written, so every node's rows of the first hour read are still there.
inline constexpr std::chrono::hours kHourlyTotalsKept{25};

}  // namespace redrive
