// W4, a fan-out/fan-in workflow: one POST /workflows of N jobs, a root, N−2
// jobs that wait for it and a sink that waits for all of them (1 → N−2 → 1).
// C consumers run the root and the middle jobs in the claim mode; one more
// consumer long-polls the sink's own queue. Measures how long the creation
// takes, how long the middle jobs take from the root's completion to the
// last one's, and how long the sink waits after the last middle job
// completes: its claim (started_at) less that job's completed_at, both the
// server's stamps. The sink's history names the middle job whose completion
// met its dependencies (`unblocked`, `cause`).
#pragma once

#include <cstdint>
#include <string>

#include "bench_config.h"
#include "consumer_group.h"

namespace redrive::bench {

struct WorkflowResult {
  bool ok = false;
  std::string error;
  std::string queue;  // the root's and the middle jobs'; the sink's is queue + "-sink"
  int64_t jobs = 0;
  double create_ms = 0;      // POST /workflows, request to answer
  int64_t request_bytes = 0;  // its body
  double fan_out_ms = 0;     // the root's completed_at → the last middle job's (server)
  double jobs_per_s = 0;     // middle jobs over fan_out_ms
  double sink_wait_ms = -1;  // the last middle job's completed_at → the sink's started_at
  double all_done_ms = 0;    // creation answered → the workflow reads completed (client)
  std::string workflow_status;
  bool timed_out = false;
  ConsumerStats consumers;
};

WorkflowResult RunWorkflow(const BenchConfig& cfg, const ClaimMode& mode);

}  // namespace redrive::bench
