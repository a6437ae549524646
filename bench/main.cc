// redrive-bench: drives a running Redrive server through its HTTP API and
// prints jobs/s end to end and enqueue-to-claim latency, for the single-job
// API and for batches with acks. The workloads mirror the peer harness
// (shared/bench/peers: W1 throughput, W2 latency, W3 dead-letter) so that the
// numbers sit next to the peers'. See bench/README.md.
//
// Exit status: 0 all phases ok; 1 a job was lost or duplicated, a phase timed
// out or failed; 2 bad options or the server is unreachable.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "bench_config.h"
#include "deadletter_workload.h"
#include "latency_workload.h"
#include "operation_workload.h"
#include "report.h"
#include "throughput_workload.h"
#include "workflow_workload.h"
#include "workload_common.h"

namespace redrive::bench {
namespace {

struct Options {
  std::string server = "http://127.0.0.1:7070";
  std::string mode = "both";
  bool json = false;
  int64_t w1_timeout_s = 120, w3_timeout_s = 90, w4_timeout_s = 300, w5_timeout_s = 600,
          w2_drain_s = 15;
  int64_t wait_ms = 5000;
  std::string run_id;  // empty: a fresh stamp
};

void Log(const std::string& line) {
  std::fprintf(stderr, "[redrive-bench %8.3f s] %s\n", NsToMs(NowNs()) / 1000, line.c_str());
}

// UTC "20261129T140501" plus the PID: two runs never share a queue (unless
// they are given one --run-id).
std::string RunStamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%S", &tm);
  return std::string(buf) + "-" + std::to_string(::getpid());
}

bool ValidPrefix(const std::string& p) {
  if (p.empty() || p.size() > 40 || p[0] == '.' || p[0] == '-') return false;
  for (char c : p) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

void AddOptions(CLI::App& app, Options& o, BenchConfig& c) {
  app.add_option("--server", o.server, "Redrive base URL")->capture_default_str();
  app.add_option("--api-key", c.api_key, "bearer token (a worker or admin key)");
  app.add_option("--mode", o.mode, "claim mode")
      ->check(CLI::IsMember({"single", "batch", "both"}))
      ->capture_default_str();
  app.add_option("--jobs,-n", c.jobs, "W1 jobs (0 skips W1)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--consumers,-c", c.consumers, "consumer threads, one connection each")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--batch,-b", c.batch, "claim limit in batch mode")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--fail-pct", c.fail_pct, "W1: percent of jobs that fail their first attempt")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  app.add_option("--payload-bytes", c.payload_bytes, "approximate serialized payload size")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  app.add_option("--bulk", c.bulk_size, "jobs per POST /jobs/bulk")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--enqueue-producers", c.enqueue_producers,
                 "W1: enqueue every job with its own POST /jobs from this many connections "
                 "(0: in bulks)")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  app.add_option("--latency-rate", c.latency_rate, "W2 jobs/s")
      ->check(CLI::Range(0.001, 1e6))
      ->capture_default_str();
  app.add_option("--latency-seconds", c.latency_seconds, "W2 duration (0 skips W2)")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_option("--latency-producers", c.latency_producers,
                 "W2 producer connections sharing the paced schedule")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--dlq", c.dlq_jobs, "W3 always-failing jobs (0 skips W3)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--workflow", c.workflow_jobs,
                 "W4 jobs of one fan-out/fan-in workflow, 1 → N−2 → 1 (0 skips W4; at most "
                 "10000, the server's limit)")
      ->check(CLI::Range(int64_t{0}, int64_t{10000}))
      ->capture_default_str();
  app.add_option("--operation", c.operation_jobs,
                 "W5 dead jobs one bulk operation retries at full speed, W2 measured on "
                 "another queue alone and meanwhile (0 skips W5)")
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}))
      ->capture_default_str();
  app.add_option("--operation-rate", c.operation_rate,
                 "W5: the operation's rate_per_second (0: none, full speed)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--wait-ms", o.wait_ms, "long-poll wait of each claim")
      ->check(CLI::Range(0, 30000))
      ->capture_default_str();
  app.add_option("--w1-timeout", o.w1_timeout_s, "W1 limit, seconds from enqueue start")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--w2-drain", o.w2_drain_s, "W2 limit after the last send, seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--w3-timeout", o.w3_timeout_s, "W3 limit, seconds from enqueue start")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--w4-timeout", o.w4_timeout_s, "W4 limit, seconds from creation start")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--w5-timeout", o.w5_timeout_s,
                 "W5 limit for the dead-lettering and for the operation, seconds each")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--queue-prefix", c.queue_prefix, "queue names: PREFIX-STAMP-MODE-PHASE")
      ->capture_default_str();
  app.add_option("--run-id", o.run_id,
                 "STAMP of the queue names instead of the time and PID (runs with one id "
                 "share their queues)");
  app.add_flag("--delete-queues", c.delete_queues,
               "delete each phase's queue and its jobs when the phase ends");
  app.add_flag("--json", o.json, "print one JSON line per mode on stdout (logs stay on stderr)");
}

// Fails fast and clearly on a wrong URL or key rather than in the middle of a
// phase. Retries for a few seconds: a server started just before us may still
// be opening its store.
Status ProbeServer(const BenchConfig& cfg) {
  constexpr int64_t kProbeForMs = 5000;
  Client stats(ClientOptionsFor(cfg, kStatsTimeout));
  const int64_t deadline = NowNs() + kProbeForMs * 1'000'000;
  for (;;) {
    Result<StatusCounts> c = stats.Stats(cfg.queue_prefix + "-probe");
    const bool retry = c.status().code() == ErrorCode::kUnavailable;  // not a 401 or 404
    if (c.ok() || !retry || NowNs() > deadline) return c.status();
    SleepMs(100);
  }
}

// --delete-queues: drops the phase's queue once it is judged; a failed delete
// fails the phase (the next run would find the queue's jobs).
template <typename PhaseResult>
void DropQueue(const BenchConfig& cfg, PhaseResult& r) {
  if (r.queue.empty()) return;
  if (Status st = DropQueueIfAsked(cfg, r.queue); !st.ok()) {
    r.ok = false;
    if (r.error.empty()) r.error = "deleting queue " + r.queue + ": " + st.message();
  }
}

ModeResult RunMode(const BenchConfig& cfg, const ClaimMode& mode) {
  ModeResult m{mode};
  if (cfg.jobs > 0) {
    Log(mode.name + " W1: " + std::to_string(cfg.jobs) + " jobs");
    m.w1 = RunThroughput(cfg, mode);
    DropQueue(cfg, *m.w1);
  }
  if (cfg.latency_seconds > 0) {
    char what[96];
    std::snprintf(what, sizeof(what), " W2: latency at %g jobs/s for %g s", cfg.latency_rate,
                  cfg.latency_seconds);
    Log(mode.name + what);
    m.w2 = RunLatency(cfg, mode);
    DropQueue(cfg, *m.w2);
  }
  if (cfg.dlq_jobs > 0) {
    Log(mode.name + " W3: " + std::to_string(cfg.dlq_jobs) + " always-failing jobs");
    m.w3 = RunDeadLetter(cfg, mode);
    DropQueue(cfg, *m.w3);
  }
  if (cfg.workflow_jobs > 0) {
    Log(mode.name + " W4: a fan-out/fan-in workflow of " + std::to_string(cfg.workflow_jobs) +
        " jobs");
    m.w4 = RunWorkflow(cfg, mode);
    DropQueue(cfg, *m.w4);
    if (Status st = DropQueueIfAsked(cfg, m.w4->queue + "-sink"); !st.ok() && m.w4->ok) {
      m.w4->ok = false;
      m.w4->error = "deleting the sink's queue: " + st.message();
    }
  }
  if (cfg.operation_jobs > 0) {
    Log(mode.name + " W5: one operation retrying " + std::to_string(cfg.operation_jobs) +
        " dead jobs");
    m.w5 = RunOperation(cfg, mode);
    DropQueue(cfg, *m.w5);
    for (std::optional<LatencyResult>* w2 : {&m.w5->latency_alone, &m.w5->latency_during}) {
      if (*w2) DropQueue(cfg, **w2);
    }
  }
  return m;
}

int Main(int argc, char** argv) {
  ProcessEpoch();
  CLI::App app{"redrive-bench: throughput and latency of a running Redrive server"};
  Options o;
  BenchConfig cfg;
  AddOptions(app, o, cfg);
  CLI11_PARSE(app, argc, argv);

  if (!ValidPrefix(cfg.queue_prefix)) {
    std::cerr << "redrive-bench: --queue-prefix must be 1-40 chars of [A-Za-z0-9._-], "
                 "not starting with . or -\n";
    return 2;
  }
  if (!o.run_id.empty() && !ValidPrefix(o.run_id)) {
    std::cerr << "redrive-bench: --run-id must be 1-40 chars of [A-Za-z0-9._-], "
                 "not starting with . or -\n";
    return 2;
  }
  cfg.server_url = o.server;
  cfg.run_stamp = o.run_id.empty() ? RunStamp() : o.run_id;
  cfg.claim_wait = std::chrono::milliseconds(o.wait_ms);
  cfg.throughput_timeout = std::chrono::seconds(o.w1_timeout_s);
  cfg.latency_drain_timeout = std::chrono::seconds(o.w2_drain_s);
  cfg.dlq_timeout = std::chrono::seconds(o.w3_timeout_s);
  cfg.workflow_timeout = std::chrono::seconds(o.w4_timeout_s);
  cfg.operation_timeout = std::chrono::seconds(o.w5_timeout_s);

  if (Status st = ProbeServer(cfg); !st.ok()) {
    const bool bad_url = st.field() == "server_url";  // the SDK's verdict on --server
    std::cerr << "redrive-bench: " << (bad_url ? "" : "server not usable: ") << st.message()
              << "\n";
    return 2;
  }

  std::vector<ClaimMode> modes;
  if (o.mode != "batch") modes.push_back({"single", 1, false});
  if (o.mode != "single") modes.push_back({"batch", cfg.batch, true});
  bool all_ok = true;
  for (const ClaimMode& mode : modes) {
    ModeResult m = RunMode(cfg, mode);
    all_ok = all_ok && m.ok();
    if (o.json) {
      std::cout << JsonLine(cfg, o.server, m) << std::endl;
    } else {
      PrintTable(std::cout, cfg, o.server, m);
      std::cout.flush();
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace redrive::bench

int main(int argc, char** argv) { return redrive::bench::Main(argc, argv); }
