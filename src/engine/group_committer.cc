#include "engine/group_committer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "core/thread_name.h"

namespace redrive::engine {

namespace {

bool AnyRequest(const std::deque<WriteOp>& queue) {
  return std::any_of(queue.begin(), queue.end(), [](const WriteOp& op) { return !op.background; });
}

}  // namespace

void TakeGroup(std::deque<WriteOp>& queue, size_t max, bool& background_owed,
               std::deque<WriteOp>& group) {
  const bool take_background = !AnyRequest(queue) || background_owed;
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
      pipelined_(store.traits().pipelined_sync),
      recorded_(std::move(recorded)),
      answered_(std::move(answered)) {}

GroupCommitter::~GroupCommitter() { Stop(); }

void GroupCommitter::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  accepting_ = true;
  stop_ = false;
  if (pipelined_) {
    std::lock_guard<std::mutex> sync_lock(sync_mu_);
    syncing_ = true;
    sync_stop_ = false;
    syncer_ = std::thread([this] {
      SetThreadName("rd-syncer");
      SyncLoop();
    });
  }
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
  // The committer has handed over its last batch: the syncer answers it and
  // what waits for it, then ends.
  {
    std::lock_guard<std::mutex> lock(sync_mu_);
    sync_stop_ = true;
  }
  sync_cv_.notify_all();
  if (syncer_.joinable()) syncer_.join();
  std::lock_guard<std::mutex> lock(sync_mu_);
  syncing_ = false;
}

void GroupCommitter::Submit(WriteOp op) {
  CountSubmitted(op);
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

void GroupCommitter::WhenDurable(std::function<void(Status)> fn) {
  if (!pipelined_) return fn(Status::Ok());
  const uint64_t mark = store_.CommitMark();
  {
    std::unique_lock<std::mutex> lock(sync_mu_);
    if (mark <= durable_mark_) {
      lock.unlock();
      return fn(Status::Ok());
    }
    if (syncing_ && !sync_stop_) {
      durable_waits_.push_back({mark, std::move(fn)});
      lock.unlock();
      sync_cv_.notify_one();
      return;
    }
  }
  // No syncer to wait for (not started, or stopping): sync here.
  Result<uint64_t> covered = store_.SyncCommits();
  fn(covered.ok() ? Status::Ok()
                  : Status::Unavailable("store error: " + covered.status().message()));
}

void GroupCommitter::Loop() {
  std::deque<WriteOp> group;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      // Everything that arrived while the last batch was committing goes in
      // this one: that is what makes one fsync serve many requests (requests
      // and duties apart: TakeGroup).
      TakeGroup(queue_, max_batch_, background_owed_, group);
    }
    OpenBatch batch = Begin();
    Execute(batch, group);
    HandOver(batch);
    if (pipelined_) Coalesce(batch);
    Committed committed = End(batch);
    if (!pipelined_) {
      Answer(committed);
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(sync_mu_);
      committed_.push_back(std::move(committed));
    }
    sync_cv_.notify_one();
  }
}

void GroupCommitter::Coalesce(OpenBatch& batch) {
  // While the syncer is still making earlier commits durable, a commit now
  // would only wait for its turn: keep the transaction open and run the
  // requests that arrive meanwhile in it too, so that one commit (one set
  // of WAL pages) serves them all, as one fsync does without the pipeline.
  // Not for a duty's batch, nor while a duty waits its turn.
  if (!batch.tx || batch.background || !batch.out.commit_status.ok()) return;
  std::deque<WriteOp> group;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !sync_in_flight_ || AnyRequest(queue_); });
      if (stop_ || !sync_in_flight_ || background_owed_) return;
      const size_t room = max_batch_ - batch.out.ops.size();
      if (room == 0) return;
      // Requests only (a duty's op leaves this transaction's group kind
      // alone): TakeGroup takes the requests when any waits.
      bool owed = false;
      TakeGroup(queue_, room, owed, group);
      background_owed_ = background_owed_ || owed;
    }
    Execute(batch, group);
    HandOver(batch);
    if (!batch.out.commit_status.ok()) return;
  }
}

void GroupCommitter::HandOver(OpenBatch& batch) {
  std::deque<WriteOp> group;
  while (hand_over_ && batch.tx && !batch.background && batch.out.commit_status.ok() &&
         !batch.fresh.empty()) {
    const std::map<std::string, long long> fresh = std::exchange(batch.fresh, {});
    // Wakes the parked claims of those queues; each submits its op now.
    if (!hand_over_(fresh)) return;
    {
      // The woken claims' ops (and any other request queued meanwhile) join
      // this group; a duty owed its turn still goes next.
      std::lock_guard<std::mutex> lock(mu_);
      if (!AnyRequest(queue_)) return;
      const size_t room = max_batch_ - batch.out.ops.size();
      if (room == 0) return;
      bool owed = false;
      TakeGroup(queue_, room, owed, group);
      background_owed_ = background_owed_ || owed;
    }
    batch.claimed.clear();
    Execute(batch, group);
    ForgetHandedOver(batch.ctx.effects.became_claimable, fresh, batch.claimed);
  }
}

GroupCommitter::OpenBatch GroupCommitter::Begin() {
  OpenBatch batch{nullptr, TxContext{clock_.Now(), random_, {}, {}, hooks_}, {}, false, {}, {}};
  Status& status = batch.out.commit_status;
  auto tx = store_.BeginWrite();
  if (!tx.ok()) {
    status = tx.status();
    return batch;
  }
  // What the hooks take once per transaction (a configuration snapshot)
  // goes in the batch's context; every op's context gets a copy.
  for (WriteHook* hook : hooks_) {
    status = hook->BeginTransaction(**tx, batch.ctx);
    if (!status.ok()) return batch;  // the transaction rolls back
  }
  batch.tx = std::move(*tx);
  return batch;
}

void GroupCommitter::Execute(OpenBatch& batch, std::deque<WriteOp>& group) {
  Committed& out = batch.out;
  const size_t first = out.ops.size();
  for (WriteOp& op : group) {
    batch.background = op.background;
    out.ops.push_back(std::move(op));
  }
  group.clear();
  out.results.resize(out.ops.size());
  if (!batch.tx || !out.commit_status.ok()) return;
  for (size_t i = first; i < out.ops.size(); ++i) {
    // Each request reads the clock when it runs, not when its group was
    // taken: the times it writes (created_at, history) are its own, and the
    // jobs of two requests of one group do not tie in created_at, whose ties
    // a store breaks by insertion order (SQLite) or by id (PostgreSQL); the
    // ids of one request's jobs ascend in insertion order (core/ids.h).
    SavepointRun r = RunInSavepoint(*batch.tx, out.ops[i], batch.ctx, clock_.Now(), random_,
                                    batch.fresh, batch.claimed);
    out.results[i] = std::move(r.result);
    if (!r.end.ok()) {
      // The transaction is in an unknown state: fail the whole batch.
      out.commit_status = r.end;
      return;
    }
  }
}

GroupCommitter::Committed GroupCommitter::End(OpenBatch& batch) {
  Status& commit_status = batch.out.commit_status;
  if (batch.tx && commit_status.ok()) {
    commit_status = pipelined_ ? batch.tx->CommitWithoutSync() : batch.tx->Commit();
  }
  batch.tx.reset();  // release the writer (or roll back) before answering anyone
  if (!commit_status.ok()) {
    spdlog::error("group commit of {} requests failed: {}", batch.out.ops.size(),
                  commit_status.ToString());
    commit_status = Status::Unavailable("store error: " + commit_status.message());
  }
  batch.out.effects = std::move(batch.ctx.effects);
  return std::move(batch.out);
}

void GroupCommitter::Answer(Committed& c) {
  const Status& commit_status = c.commit_status;
  if (commit_status.ok() && recorded_) recorded_(c.effects, c.ops.size());
  // Only now, with the data durable, does any request learn its outcome.
  for (size_t i = 0; i < c.ops.size(); ++i) {
    c.ops[i].after(commit_status.ok() ? std::move(c.results[i]) : commit_status);
  }
  if (commit_status.ok() && answered_) answered_(c.effects, c.ops.size());
}

void GroupCommitter::SyncLoop() {
  // Waits left over from the last round (their commit had not ended when
  // it synced) are retried after a short pause, not at once: a commit made
  // outside this executor hands nothing over to wake this thread.
  bool retry = false;
  for (;;) {
    std::deque<Committed> batches;
    std::vector<DurableWait> waits;
    {
      std::unique_lock<std::mutex> lock(sync_mu_);
      auto ready = [&] {
        return sync_stop_ || !committed_.empty() || (!durable_waits_.empty() && !retry);
      };
      if (retry) {
        sync_cv_.wait_for(lock, std::chrono::milliseconds(1), ready);
      } else {
        sync_cv_.wait(lock, ready);
      }
      if (sync_stop_ && committed_.empty() && durable_waits_.empty()) return;
      batches.swap(committed_);
      waits.swap(durable_waits_);
    }
    // One fsync for every batch handed over since the last one. Meanwhile
    // the committer gathers the next requests into one transaction
    // (Coalesce), and commits it when this ends.
    {
      std::lock_guard<std::mutex> lock(mu_);
      sync_in_flight_ = true;
    }
    Result<uint64_t> covered = store_.SyncCommits();
    {
      std::lock_guard<std::mutex> lock(mu_);
      sync_in_flight_ = false;
    }
    cv_.notify_all();
    Status sync_status = covered.ok()
                             ? Status::Ok()
                             : Status::Unavailable("store error: " + covered.status().message());
    if (!covered.ok()) spdlog::error("syncing commits failed: {}", covered.status().ToString());
    if (covered.ok()) {
      std::lock_guard<std::mutex> lock(sync_mu_);
      durable_mark_ = std::max(durable_mark_, *covered);
    }
    for (Committed& c : batches) {
      if (c.commit_status.ok() && !sync_status.ok()) c.commit_status = sync_status;
      Answer(c);
    }
    std::vector<DurableWait> later;
    for (DurableWait& w : waits) {
      if (!covered.ok()) {
        w.fn(sync_status);
      } else if (w.mark <= *covered) {
        w.fn(Status::Ok());
      } else {
        later.push_back(std::move(w));
      }
    }
    std::lock_guard<std::mutex> lock(sync_mu_);
    retry = !later.empty();
    for (DurableWait& w : later) durable_waits_.push_back(std::move(w));
  }
}

}  // namespace redrive::engine
