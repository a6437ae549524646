// A short in-memory history of job throughput for the console's chart: per
// sampling interval and queue, how many jobs were enqueued, completed, failed
// (attempts) and dead-lettered. Like the Prometheus counters it is per process
// and starts empty when the server starts; Prometheus is the long-term record.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"

namespace redrive::engine {

// Job event counts, either running totals since start or one interval's worth.
struct JobCounts {
  long long enqueued = 0;
  long long completed = 0;
  long long failed = 0;
  long long deadlettered = 0;

  JobCounts& operator+=(const JobCounts& o);
  JobCounts operator-(const JobCounts& o) const;
  bool operator==(const JobCounts&) const = default;
};

// One interval ending at `at`, summed over the queues asked for.
struct ThroughputPoint {
  Instant at;
  JobCounts counts;
};

class ThroughputHistory {
 public:
  // Keeps the last `capacity` samples (oldest dropped first).
  explicit ThroughputHistory(size_t capacity) : capacity_(capacity) {}

  // Records the interval ending at `at`: per queue, what happened in it.
  void Record(Instant at, std::map<std::string, JobCounts> per_queue);

  // Every kept interval, oldest first, for one queue or (nullopt) all queues;
  // a queue that did nothing in an interval counts zero there.
  std::vector<ThroughputPoint> Points(const std::optional<std::string>& queue) const;

 private:
  struct Sample {
    Instant at;
    std::map<std::string, JobCounts> per_queue;
  };
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<Sample> samples_;
};

}  // namespace redrive::engine
