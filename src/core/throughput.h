// Job throughput per sampling interval, for the console's chart
// (GET /api/v1/throughput): per interval and queue, how many jobs were
// enqueued, completed, failed (attempts) and dead-lettered. Each node samples
// its own counters (engine/services/throughput_sampler.h) and records its
// samples in the store, which sums them over the nodes when read.
#pragma once

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

}  // namespace redrive
