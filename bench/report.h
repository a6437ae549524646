// The results of one claim mode and their two renderings: a compact table for
// people, and one JSON line (all fields) for scripts and result files.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "bench_config.h"
#include "deadletter_workload.h"
#include "latency_workload.h"
#include "operation_workload.h"
#include "throughput_workload.h"
#include "workflow_workload.h"

namespace redrive::bench {

struct ModeResult {
  ClaimMode mode;
  std::optional<ThroughputResult> w1;  // nullopt: phase skipped
  std::optional<LatencyResult> w2;
  std::optional<DeadLetterResult> w3;
  std::optional<WorkflowResult> w4;
  std::optional<OperationResult> w5;

  bool ok() const {
    return (!w1 || w1->ok) && (!w2 || w2->ok) && (!w3 || w3->ok) && (!w4 || w4->ok) &&
           (!w5 || w5->ok);
  }
};

void PrintTable(std::ostream& out, const BenchConfig& cfg, const std::string& server_url,
                const ModeResult& result);

// One line, no trailing newline.
std::string JsonLine(const BenchConfig& cfg, const std::string& server_url,
                     const ModeResult& result);

}  // namespace redrive::bench
