#include "latency_summary.h"

#include <algorithm>
#include <cmath>

#include "bench_clock.h"

namespace redrive::bench {

int64_t NearestRank(const std::vector<int64_t>& sorted, double percent) {
  const double n = static_cast<double>(sorted.size());
  int64_t rank = static_cast<int64_t>(std::ceil(percent / 100.0 * n)) - 1;
  rank = std::clamp<int64_t>(rank, 0, static_cast<int64_t>(sorted.size()) - 1);
  return sorted[static_cast<size_t>(rank)];
}

LatencySummary Summarize(std::vector<int64_t>& samples_ns) {
  LatencySummary s;
  s.count = static_cast<int64_t>(samples_ns.size());
  if (samples_ns.empty()) return s;
  std::sort(samples_ns.begin(), samples_ns.end());
  s.p50_ms = NsToMs(NearestRank(samples_ns, 50));
  s.p90_ms = NsToMs(NearestRank(samples_ns, 90));
  s.p99_ms = NsToMs(NearestRank(samples_ns, 99));
  s.max_ms = NsToMs(samples_ns.back());
  double sum = 0;
  for (int64_t v : samples_ns) sum += NsToMs(v);
  s.mean_ms = sum / static_cast<double>(samples_ns.size());
  return s;
}

}  // namespace redrive::bench
