// Percentiles of a latency sample, computed the way the peer harness does
// (nearest rank: the ceil(p/100 · n)-th smallest value), so p50/p90/p99 of
// both tools mean the same thing.
#pragma once

#include <cstdint>
#include <vector>

namespace redrive::bench {

struct LatencySummary {
  int64_t count = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0, mean_ms = 0;
};

// `samples_ns` is consumed (sorted in place).
LatencySummary Summarize(std::vector<int64_t>& samples_ns);

// The nearest-rank percentile of a sorted, non-empty sample.
int64_t NearestRank(const std::vector<int64_t>& sorted, double percent);

}  // namespace redrive::bench
