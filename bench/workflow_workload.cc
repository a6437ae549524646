#include "workflow_workload.h"

#include <atomic>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <optional>
#include <stop_token>
#include <thread>
#include <unistd.h>

#include "bench_clock.h"
#include "workload_common.h"

namespace redrive::bench {
namespace {

namespace json = boost::json;

// Consumers must be parked in their long-poll before the jobs arrive.
constexpr int64_t kWarmupMs = 500;

// The string `v` holds, or "" when it is not one.
std::string Str(const json::value& v) { return v.is_string() ? std::string(v.get_string()) : ""; }

std::string MiddleKey(int64_t i) { return "m" + std::to_string(i); }

// {"name", "jobs": [root, m1 … m(n−2) after root, sink after every m]}.
json::object WorkflowBody(const BenchConfig& cfg, const std::string& queue,
                          const std::string& sink_queue, int64_t n) {
  json::array jobs;
  jobs.reserve(static_cast<size_t>(n));
  jobs.push_back(json::object{{"key", "root"},
                              {"queue_name", queue},
                              {"payload", MakePayload("W4", 0, 0, cfg.payload_bytes)}});
  json::array all_middle;
  all_middle.reserve(static_cast<size_t>(n - 2));
  for (int64_t i = 1; i <= n - 2; ++i) {
    jobs.push_back(json::object{{"key", MiddleKey(i)},
                                {"queue_name", queue},
                                {"payload", MakePayload("W4", i, 0, cfg.payload_bytes)},
                                {"depends_on", json::array{"root"}}});
    all_middle.push_back(json::string(MiddleKey(i)));
  }
  jobs.push_back(json::object{{"key", "sink"},
                              {"queue_name", sink_queue},
                              {"payload", MakePayload("W4", n - 1, 0, cfg.payload_bytes)},
                              {"depends_on", std::move(all_middle)}});
  return {{"name", "redrive-bench fan-out/fan-in " + std::to_string(n)}, {"jobs", std::move(jobs)}};
}

double Ms(Instant later, Instant earlier) {
  return std::chrono::duration<double, std::milli>(later - earlier).count();
}

// What the sink's consumer reports; `error` is read only after its thread ends.
struct SinkState {
  std::atomic<bool> done{false}, failed{false};
  std::string error;
};

// The sink's own consumer: long-polls its queue until it has run the sink.
void RunSink(const BenchConfig& cfg, const std::string& queue, std::stop_token stop,
             SinkState& state) {
  Client client(ClientOptionsFor(cfg, cfg.claim_wait + std::chrono::seconds(30)));
  const std::string worker = "redrive-bench-" + std::to_string(::getpid()) + "-sink";
  while (!stop.stop_requested()) {
    sdk::ClaimRequest claim{.queue_name = queue, .worker_id = worker, .limit = 1,
                            .wait = cfg.claim_wait};
    Result<sdk::ClaimResult> claimed = client.Claim(claim, stop);
    if (stop.stop_requested()) return;
    if (!claimed.ok()) {
      state.error = "sink claim: " + claimed.status().message();
      state.failed = true;
      return;
    }
    if (claimed->jobs.empty()) continue;
    const sdk::ClaimedJob& job = claimed->jobs.front();
    if (Status st = client.Complete(job.id, worker, job.lease_id); !st.ok()) {
      state.error = "sink complete: " + st.message();
      state.failed = true;
      return;
    }
    state.done = true;
    return;
  }
}

// The id of `key` in the creation's answer ({"job_ids": [{key, job_id}]}).
std::optional<std::string> JobIdOf(const json::value& created, std::string_view key) {
  const json::array* ids = created.as_object().if_contains("job_ids")
                               ? created.at("job_ids").if_array()
                               : nullptr;
  if (ids == nullptr) return std::nullopt;
  for (const json::value& v : *ids) {
    const json::object* o = v.if_object();
    if (o == nullptr || !o->contains("key") || !o->contains("job_id")) continue;
    if (o->at("key") == json::string(key)) return Str(o->at("job_id"));
  }
  return std::nullopt;
}

// The job whose completion released the sink: its `unblocked` entry's cause.
Result<std::string> ReleasingJob(Client& client, const std::string& sink_id) {
  REDRIVE_ASSIGN_OR_RETURN(std::vector<HistoryEntry> history, client.History(sink_id));
  for (const HistoryEntry& e : history) {
    if (e.event_type != "unblocked") continue;
    boost::system::error_code ec;
    const json::value details = json::parse(e.details_json, ec);
    if (!ec && details.is_object() && details.as_object().contains("cause") &&
        details.at("cause").is_string()) {
      return Str(details.at("cause"));
    }
  }
  return Status::NotFound("the sink's history has no unblocked cause");
}

// Fills the server-side figures from the jobs' stamps.
Status ReadStamps(Client& client, const std::string& root_id, const std::string& sink_id,
                  WorkflowResult& r) {
  REDRIVE_ASSIGN_OR_RETURN(std::string last_id, ReleasingJob(client, sink_id));
  REDRIVE_ASSIGN_OR_RETURN(Job root, client.GetJob(root_id));
  REDRIVE_ASSIGN_OR_RETURN(Job last, client.GetJob(last_id));
  REDRIVE_ASSIGN_OR_RETURN(Job sink, client.GetJob(sink_id));
  if (!root.completed_at || !last.completed_at || !sink.started_at) {
    return Status::Internal("a job lacks its completed_at or started_at");
  }
  r.fan_out_ms = Ms(*last.completed_at, *root.completed_at);
  r.jobs_per_s = r.fan_out_ms > 0 ? static_cast<double>(r.jobs - 2) * 1000 / r.fan_out_ms : 0;
  r.sink_wait_ms = Ms(*sink.started_at, *last.completed_at);
  return Status::Ok();
}

}  // namespace

WorkflowResult RunWorkflow(const BenchConfig& cfg, const ClaimMode& mode) {
  WorkflowResult r;
  r.jobs = cfg.workflow_jobs;
  r.queue = QueueName(cfg, mode, "w4");
  const std::string sink_queue = r.queue + "-sink";
  if (r.jobs < 3) {
    r.error = "a fan-out/fan-in workflow needs at least 3 jobs";
    return r;
  }
  PhaseClients clients(cfg);
  const json::value body = WorkflowBody(cfg, r.queue, sink_queue, r.jobs);
  r.request_bytes = static_cast<int64_t>(json::serialize(body).size());

  ConsumerGroup consumers(ClientOptionsFor(cfg), MakeConsumerConfig(cfg, mode, r.queue),
                          [](const BenchJob&) { return Outcome::kComplete; });
  consumers.Start();
  SinkState sink_state;
  std::jthread sink([&](std::stop_token stop) { RunSink(cfg, sink_queue, stop, sink_state); });
  SleepMs(kWarmupMs);

  const int64_t t0 = NowNs();
  const int64_t deadline = t0 + ToNs(cfg.workflow_timeout);
  Result<json::value> created = clients.control.Call("POST", "/workflows", body);
  const int64_t created_ns = NowNs();
  r.create_ms = NsToMs(created_ns - t0);
  std::optional<std::string> workflow_id, root_id, sink_id;
  if (!created.ok()) {
    r.error = "POST /workflows: " + created.status().message();
  } else if (const json::object* o = created->if_object();
             o == nullptr || !o->contains("workflow_id")) {
    r.error = "POST /workflows answered no workflow_id";
  } else {
    workflow_id = Str(o->at("workflow_id"));
    root_id = JobIdOf(*created, "root");
    sink_id = JobIdOf(*created, "sink");
    if (!root_id || !sink_id) r.error = "POST /workflows answered no root or sink id";
  }
  if (r.error.empty()) {
    r.timed_out =
        !WaitUntil([&] { return sink_state.done.load() || sink_state.failed.load(); }, deadline);
  }
  const int64_t done_ns = NowNs();
  sink.request_stop();
  sink.join();
  consumers.Stop();
  r.consumers = consumers.stats();
  if (r.error.empty() && sink_state.failed) r.error = sink_state.error;
  if (r.error.empty() && r.timed_out) r.error = "the sink did not run in time";
  if (!r.error.empty()) return r;

  r.all_done_ms = NsToMs(done_ns - created_ns);
  Result<json::value> workflow = clients.control.Call("GET", "/workflows/" + *workflow_id);
  if (workflow.ok() && workflow->is_object() && workflow->as_object().contains("status")) {
    r.workflow_status = Str(workflow->at("status"));
  }
  if (Status st = ReadStamps(clients.control, *root_id, *sink_id, r); !st.ok()) {
    r.error = st.message();
    return r;
  }
  if (r.workflow_status != "completed") {
    r.error = "the workflow reads " + r.workflow_status + ", not completed";
    return r;
  }
  r.ok = r.consumers.request_errors == 0;
  if (!r.ok) r.error = "consumer request errors: " + r.consumers.first_error;
  return r;
}

}  // namespace redrive::bench
