#include "engine/group_committer.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/thread_name.h"

namespace redrive::engine {

void TakeGroup(std::deque<WriteOp>& queue, size_t max, bool& background_owed,
               std::deque<WriteOp>& group) {
  const bool any_request =
      std::any_of(queue.begin(), queue.end(), [](const WriteOp& op) { return !op.background; });
  const bool take_background = !any_request || background_owed;
  std::deque<WriteOp> rest;
  bool left_background = false;
  for (WriteOp& op : queue) {
    if (group.size() < max && op.background == take_background) {
      group.push_back(std::move(op));
    } else {
      left_background = left_background || op.background;
      rest.push_back(std::move(op));
    }
  }
  queue.swap(rest);
  background_owed = !take_background && left_background;
}

GroupCommitter::GroupCommitter(store::Store& store, const Clock& clock, Random& random,
                               size_t max_batch, EffectsSink recorded, EffectsSink answered)
    : store_(store),
      clock_(clock),
      random_(random),
      max_batch_(max_batch),
      recorded_(std::move(recorded)),
      answered_(std::move(answered)) {}

GroupCommitter::~GroupCommitter() { Stop(); }

void GroupCommitter::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  accepting_ = true;
  stop_ = false;
  thread_ = std::thread([this] {
    SetThreadName("rd-committer");
    Loop();
  });
}

void GroupCommitter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    accepting_ = false;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GroupCommitter::Submit(WriteOp op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (accepting_) {
      queue_.push_back(std::move(op));
      if (queue_.size() == 1) cv_.notify_one();
      return;
    }
  }
  op.after(Status::Unavailable("the server is shutting down"));
}

void GroupCommitter::Loop() {
  std::deque<WriteOp> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      // Everything that arrived while the last batch was committing goes in
      // this one: that is what makes one fsync serve many requests (requests
      // and duties apart: TakeGroup).
      TakeGroup(queue_, max_batch_, background_owed_, batch);
    }
    RunBatch(batch);
    batch.clear();
  }
}

void GroupCommitter::RunBatch(std::deque<WriteOp>& batch) {
  TxContext ctx{clock_.Now(), random_, {}, {}, hooks_};
  std::vector<Status> results(batch.size());
  Status commit_status;
  auto tx = store_.BeginWrite();
  if (tx.ok()) {
    // What the hooks take once per transaction (a configuration snapshot)
    // goes in the batch's context; every op's context gets a copy.
    for (WriteHook* hook : hooks_) {
      commit_status = hook->BeginTransaction(**tx, ctx);
      if (!commit_status.ok()) break;
    }
  }
  if (!tx.ok()) {
    commit_status = tx.status();
  } else if (!commit_status.ok()) {
    tx->reset();
  } else {
    store::WriteTx& w = **tx;
    for (size_t i = 0; i < batch.size(); ++i) {
      TxContext op_ctx{ctx.now,  random_,     {},
                       {},       hooks_,      ctx.subscriptions,
                       node_id_, max_queues_, ctx.completion_webhook_exists};
      Status sp = w.Savepoint();
      if (!sp.ok()) {
        results[i] = sp;
        continue;
      }
      // What the hooks write goes in the request's own savepoint: it commits,
      // or rolls back, with the change that caused it.
      results[i] = batch[i].run(w, op_ctx);
      Status end = results[i].ok() ? w.ReleaseSavepoint() : w.RollbackToSavepoint();
      if (!end.ok()) {
        // The transaction is in an unknown state: fail the whole batch.
        commit_status = end;
        break;
      }
      if (results[i].ok()) ctx.effects.Merge(op_ctx.effects);
    }
    if (commit_status.ok()) commit_status = w.Commit();
    tx->reset();  // release the writer before answering anyone
  }
  if (!commit_status.ok()) {
    spdlog::error("group commit of {} requests failed: {}", batch.size(), commit_status.ToString());
    commit_status = Status::Unavailable("store error: " + commit_status.message());
  }
  if (commit_status.ok() && recorded_) recorded_(ctx.effects, batch.size());
  // Only now, with the data durable, does any request learn its outcome.
  for (size_t i = 0; i < batch.size(); ++i) {
    batch[i].after(commit_status.ok() ? std::move(results[i]) : commit_status);
  }
  if (commit_status.ok() && answered_) answered_(ctx.effects, batch.size());
}

}  // namespace redrive::engine
