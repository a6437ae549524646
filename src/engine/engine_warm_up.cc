// Engine::WarmUp: the write path run once on every connection, then rolled
// back, before the node takes requests (engine.h).
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/job_ops.h"

namespace redrive::engine {
namespace {

// Enqueued into, claimed from and completed in, never committed.
constexpr char kWarmUpQueue[] = "redrive-warm-up";
constexpr char kWarmUpWorker[] = "redrive-warm-up";

// PostgreSQL plans a prepared statement for its values on each of its
// first five runs and makes the generic plan it keeps at the sixth.
constexpr int kWarmUpRounds = 6;

// How long a round's ops wait for each other (each holding a transaction,
// so that each has a connection of its own) before going on without.
constexpr auto kWarmUpGather = std::chrono::milliseconds(20);

// What an op returns once its steps succeeded: any error rolls the
// transaction back, and this one is not re-run.
Status RolledBack() { return Status::Unavailable("warm-up: rolled back"); }

// Claims and completes jobs of `limit` in the warm-up queue.
Status ClaimAndComplete(store::WriteTx& tx, TxContext& ctx, int limit) {
  const ops::Claimer claimer{kWarmUpWorker, limit, std::chrono::seconds(30)};
  REDRIVE_ASSIGN_OR_RETURN(ops::Claimed claimed,
                           ops::ClaimFor(tx, ctx, kWarmUpQueue, std::span(&claimer, 1)));
  std::vector<ops::JobEvent> completes;
  for (const Job& job : claimed.jobs[0]) {
    completes.push_back({job.id, event::Complete{kWarmUpWorker, job.lease_id, "{}"}});
  }
  REDRIVE_ASSIGN_OR_RETURN(auto applied, ops::ApplyToJobs(tx, ctx, completes));
  for (auto& r : applied) REDRIVE_RETURN_IF_ERROR(r.status());
  return Status::Ok();
}

// The requests' statements, in both of the forms a store may have for one
// row and for several: an enqueue of one job and one of four, their claims
// and their completions.
Status WarmUpSteps(store::WriteTx& tx, TxContext& ctx) {
  EnqueueParams one;
  one.queue_name = kWarmUpQueue;
  one.payload_json = "{}";
  const std::vector<EnqueueParams> four(4, one);
  using Jobs = std::span<const EnqueueParams>;
  for (Jobs jobs : {Jobs(&one, 1), Jobs(four)}) {
    REDRIVE_ASSIGN_OR_RETURN(auto made, ops::EnqueueBatch(tx, ctx, jobs));
    for (auto& r : made) REDRIVE_RETURN_IF_ERROR(r.status());
  }
  REDRIVE_RETURN_IF_ERROR(ClaimAndComplete(tx, ctx, 1));
  return ClaimAndComplete(tx, ctx, 4);
}

// One round: `n` ops at once, each waiting (a little) for the others to
// hold their transactions too.
struct Round {
  explicit Round(size_t n) : n(n) {}
  const size_t n;
  std::mutex mu;
  std::condition_variable cv;
  size_t inside = 0;
  size_t done = 0;
  Status first_error;
};

}  // namespace

Status Engine::WarmUp() {
  if (!impl_->started) return Status::Unavailable("the engine is not started");
  for (int round = 0; round < kWarmUpRounds; ++round) {
    auto r = std::make_shared<Round>(impl_->writer->Concurrency());
    for (size_t i = 0; i < r->n; ++i) {
      // Unset until run: an op never run (a stopped writer) has only the
      // executor's answer.
      auto outcome = std::make_shared<std::optional<Status>>();
      impl_->writer->Submit({[r, outcome](store::WriteTx& tx, TxContext& ctx) -> Status {
                               {
                                 std::unique_lock lock(r->mu);
                                 ++r->inside;
                                 r->cv.notify_all();
                                 r->cv.wait_for(lock, kWarmUpGather,
                                                [&] { return r->inside >= r->n; });
                               }
                               *outcome = WarmUpSteps(tx, ctx);
                               return (*outcome)->ok() ? RolledBack() : **outcome;
                             },
                             [r, outcome](Status st) {
                               const Status result = outcome->has_value() ? **outcome : st;
                               std::lock_guard lock(r->mu);
                               if (!result.ok() && r->first_error.ok()) r->first_error = result;
                               ++r->done;
                               r->cv.notify_all();
                             }});
    }
    std::unique_lock lock(r->mu);
    r->cv.wait(lock, [&] { return r->done == r->n; });
    if (!r->first_error.ok()) return r->first_error;
  }
  return Status::Ok();
}

}  // namespace redrive::engine
