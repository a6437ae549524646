#include "consumer_group.h"

#include "bench_clock.h"

namespace redrive::bench {
namespace {

constexpr std::string_view kFailError = "redrive-bench: planned failure";
// After a failed claim, pause before the next so a broken server is not spun on.
constexpr int64_t kErrorBackoffMs = 100;

}  // namespace

ConsumerGroup::ConsumerGroup(Endpoint endpoint, std::string api_key, ConsumerConfig config,
                             JobHandler handler)
    : endpoint_(std::move(endpoint)),
      api_key_(std::move(api_key)),
      config_(std::move(config)),
      handler_(std::move(handler)) {}

ConsumerGroup::~ConsumerGroup() { Stop(); }

void ConsumerGroup::Start() {
  for (int k = 0; k < config_.consumers; ++k) threads_.emplace_back([this, k] { Run(k); });
}

void ConsumerGroup::Stop() {
  stop_.store(true);
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
  KeepFirstError(st.message());
}

void ConsumerGroup::NoteRefusals(const AckTally& tally) {
  if (tally.refused == 0) return;
  ack_refusals_.fetch_add(tally.refused);
  KeepFirstError("ack refused: " + tally.first_refusal);
}

void ConsumerGroup::KeepFirstError(const std::string& message) {
  std::lock_guard lock(error_mu_);
  if (first_error_.empty()) first_error_ = message;
}

void ConsumerGroup::AckEach(RedriveApi& api, const std::vector<ClaimedJob>& jobs,
                            const std::vector<Outcome>& outcomes, const std::string& worker_id) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    Status st = outcomes[i] == Outcome::kComplete ? api.Complete(jobs[i], worker_id)
                                                  : api.Fail(jobs[i], worker_id, kFailError);
    if (!st.ok()) NoteError(st);
  }
}

void ConsumerGroup::Run(int thread_index) {
  HttpClient http(endpoint_, api_key_);
  RedriveApi api(&http);
  const std::string worker_id = config_.worker_prefix + "-" + std::to_string(thread_index);
  std::vector<Ack> acks;  // batch mode: outcomes not yet sent
  std::vector<ClaimedJob> jobs;
  std::vector<Outcome> outcomes;
  bool acks_in_cancelled_claim = false;
  while (!stop_.load()) {
    jobs.clear();
    AckTally tally;
    ClaimRequest req{config_.queue, worker_id, config_.claim_limit, config_.wait};
    req.acks = acks;
    // Only the claim is cancellable: it is the call that may wait for seconds,
    // and completions must still reach the server after Stop() is called.
    http.set_cancel_flag(&stop_);
    Status st = api.Claim(req, &jobs, &tally);
    http.set_cancel_flag(nullptr);
    if (!st.ok()) {
      if (stop_.load()) {  // cancelled; the acks are flushed below
        acks_in_cancelled_claim = !acks.empty();
        break;
      }
      NoteError(st);
      SleepMs(kErrorBackoffMs);
      continue;  // the same acks ride on the next claim
    }
    acks.clear();
    claims_.fetch_add(1);
    NoteRefusals(tally);
    if (jobs.empty()) empty_claims_.fetch_add(1);
    jobs_.fetch_add(static_cast<int64_t>(jobs.size()));
    outcomes.clear();
    for (const ClaimedJob& job : jobs) {
      Outcome o = handler_(job);
      outcomes.push_back(o);
      if (config_.batch_acks) acks.push_back({job.id, job.lease_id, o == Outcome::kFail});
    }
    if (!config_.batch_acks) AckEach(api, jobs, outcomes, worker_id);
  }
  // A cancelled claim may or may not have applied the acks it carried; sending
  // them again is harmless (a finished job answers per item, not for the
  // batch), but then a refusal is expected and not counted.
  if (!acks.empty()) {
    AckTally tally;
    Status st = api.AckBatch(worker_id, acks, &tally);
    if (!st.ok()) NoteError(st);
    if (!acks_in_cancelled_claim) NoteRefusals(tally);
  }
  connects_.fetch_add(http.connects());
}

}  // namespace redrive::bench
