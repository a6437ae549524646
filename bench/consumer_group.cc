#include "consumer_group.h"

#include "bench_clock.h"

namespace redrive::bench {
namespace {

constexpr std::string_view kFailError = "redrive-bench: planned failure";
// After a failed claim, pause before the next so a broken server is not spun on.
constexpr int64_t kErrorBackoffMs = 100;
constexpr int kLeaseSecs = 30;

}  // namespace

ConsumerGroup::ConsumerGroup(sdk::ClientOptions client_options, ConsumerConfig config,
                             JobHandler handler)
    : client_options_(std::move(client_options)),
      config_(std::move(config)),
      handler_(std::move(handler)) {}

ConsumerGroup::~ConsumerGroup() { Stop(); }

void ConsumerGroup::Start() {
  for (int k = 0; k < config_.consumers; ++k) threads_.emplace_back([this, k] { Run(k); });
}

void ConsumerGroup::Stop() {
  stop_.request_stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

ConsumerStats ConsumerGroup::stats() const {
  ConsumerStats s;
  s.claims = claims_.load();
  s.empty_claims = empty_claims_.load();
  s.jobs = jobs_.load();
  s.request_errors = request_errors_.load();
  s.ack_refusals = ack_refusals_.load();
  s.connects = connects_.load();
  std::lock_guard lock(error_mu_);
  s.first_error = first_error_;
  return s;
}

void ConsumerGroup::NoteError(const Status& st) {
  request_errors_.fetch_add(1);
  KeepFirstError(st.ToString());
}

void ConsumerGroup::NoteRefusals(const std::vector<sdk::AckResult>& results) {
  for (const sdk::AckResult& r : results) {
    if (r.success) continue;
    ack_refusals_.fetch_add(1);
    KeepFirstError("ack refused: " + r.id + ": " + r.error.ToString());
  }
}

void ConsumerGroup::KeepFirstError(const std::string& message) {
  std::lock_guard lock(error_mu_);
  if (first_error_.empty()) first_error_ = message;
}

void ConsumerGroup::AckEach(Client& client, const std::vector<sdk::ClaimedJob>& jobs,
                            const std::vector<Outcome>& outcomes, const std::string& worker_id) {
  static const std::string kError(kFailError);
  for (size_t i = 0; i < jobs.size(); ++i) {
    Status st = outcomes[i] == Outcome::kComplete
                    ? client.Complete(jobs[i].id, worker_id, jobs[i].lease_id)
                    : client.Fail(jobs[i].id, worker_id, jobs[i].lease_id, kError).status();
    if (!st.ok()) NoteError(st);
  }
}

void ConsumerGroup::Run(int thread_index) {
  sdk::ClientOptions options = client_options_;
  options.max_idle_connections = 1;  // one caller: one connection
  Client client(std::move(options));
  const std::string worker_id = config_.worker_prefix + "-" + std::to_string(thread_index);
  sdk::ClaimRequest req{.queue_name = config_.queue,
                        .worker_id = worker_id,
                        .limit = config_.claim_limit,
                        .lease_duration_secs = kLeaseSecs,
                        .wait = config_.wait};
  std::vector<sdk::Ack> acks;  // batch mode: outcomes not yet sent
  std::vector<Outcome> outcomes;
  bool acks_in_cancelled_claim = false;
  while (!stop_.stop_requested()) {
    if (acks.empty()) {
      req.acks.reset();
    } else {
      req.acks = std::move(acks);
    }
    // Only the claim is cancellable: it is the call that may wait for seconds,
    // and completions must still reach the server after Stop() is called.
    Result<sdk::ClaimResult> claimed = client.Claim(req, stop_.get_token());
    acks = req.acks ? std::move(*req.acks) : std::vector<sdk::Ack>();
    if (!claimed.ok()) {
      if (stop_.stop_requested()) {  // cancelled; the acks are flushed below
        acks_in_cancelled_claim = !acks.empty();
        break;
      }
      NoteError(claimed.status());
      SleepMs(kErrorBackoffMs);
      continue;  // the same acks ride on the next claim
    }
    acks.clear();
    claims_.fetch_add(1);
    NoteRefusals(claimed->results);
    const std::vector<sdk::ClaimedJob>& jobs = claimed->jobs;
    if (jobs.empty()) empty_claims_.fetch_add(1);
    jobs_.fetch_add(static_cast<int64_t>(jobs.size()));
    outcomes.clear();
    for (const sdk::ClaimedJob& job : jobs) {
      Outcome o = handler_(ReadPayload(job.payload));
      outcomes.push_back(o);
      if (!config_.batch_acks) continue;
      if (o == Outcome::kFail) {
        acks.push_back(sdk::Ack::Fail(job.id, job.lease_id, std::string(kFailError)));
      } else {
        acks.push_back({.id = job.id, .lease_id = job.lease_id});  // no result: none is sent
      }
    }
    if (!config_.batch_acks) AckEach(client, jobs, outcomes, worker_id);
  }
  // A cancelled claim may or may not have applied the acks it carried; sending
  // them again is harmless (a finished job answers per item, not for the
  // batch), but then a refusal is expected and not counted.
  if (!acks.empty()) {
    Result<std::vector<sdk::AckResult>> results = client.AckBatch(worker_id, acks);
    if (!results.ok()) {
      NoteError(results.status());
    } else if (!acks_in_cancelled_claim) {
      NoteRefusals(*results);
    }
  }
  connects_.fetch_add(client.connections_opened());
}

}  // namespace redrive::bench
