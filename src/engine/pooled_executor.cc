#include "engine/pooled_executor.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/thread_name.h"

namespace redrive::engine {

namespace {

// The op's own errors are its answer; these are the store's.
Status StoreError(const Status& st) {
  if (st.code() == ErrorCode::kUnavailable) return st;
  return Status::Unavailable("store error: " + st.message());
}

// While a thread offers new jobs to the hand-over, what it submits to that
// executor is taken aside into `ops` (the woken claims' ops), not queued.
struct Capture {
  const PooledExecutor* executor;
  std::vector<WriteOp>* ops;
};
thread_local Capture t_capture{nullptr, nullptr};

}  // namespace

PooledExecutor::PooledExecutor(store::Store& store, const Clock& clock, Random& random,
                               size_t threads, WriteExecutorOptions options, EffectsSink recorded,
                               EffectsSink answered)
    : store_(store),
      clock_(clock),
      random_(random),
      threads_(std::max<size_t>(threads, 1)),
      options_(options),
      recorded_(std::move(recorded)),
      answered_(std::move(answered)),
      limit_(threads_) {}

PooledExecutor::~PooledExecutor() { Stop(); }

void PooledExecutor::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!workers_.empty()) return;
  accepting_ = true;
  stop_ = false;
  for (size_t i = 0; i < threads_; ++i) {
    workers_.emplace_back([this] {
      SetThreadName("rd-writer");
      Loop();
    });
  }
}

void PooledExecutor::Stop() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    accepting_ = false;
    stop_ = true;
    workers.swap(workers_);
  }
  cv_.notify_all();
  for (std::thread& t : workers) t.join();
}

void PooledExecutor::Submit(WriteOp op) {
  CountSubmitted(op);
  // (A duty's op is never taken aside: it waits for its own transaction.)
  if (t_capture.executor == this && !op.background) {
    t_capture.ops->push_back(std::move(op));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (accepting_) {
      queue_.push_back(std::move(op));
      cv_.notify_one();
      return;
    }
  }
  op.after(Status::Unavailable("the server is shutting down"));
}

void PooledExecutor::LimitConcurrency(size_t ops) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    limit_ = std::clamp<size_t>(ops, 1, threads_);
  }
  cv_.notify_all();  // a raised limit lets waiting threads take queued ops
}

size_t PooledExecutor::Concurrency() const {
  std::lock_guard<std::mutex> lock(mu_);
  return limit_;
}

void PooledExecutor::Loop() {
  for (;;) {
    WriteOp op;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Stopping drains the queue on every thread, whatever the limit.
      cv_.wait(lock, [&] { return stop_ || (!queue_.empty() && running_ < limit_); });
      if (queue_.empty()) return;  // stopping and drained
      op = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    RunOp(op);
    // No wake-up here: this thread takes the next queued op itself (its
    // slot is free again), and waking an idle one for nothing would cost a
    // context switch per op.
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
}

void PooledExecutor::RunOp(WriteOp& op) {
  TxEffects effects;
  std::vector<Joined> joined;
  Status st;
  for (int attempt = 1;; ++attempt) {
    if (attempt > 1) PauseBeforeTry(attempt);
    effects = {};
    st = TryOnce(op, effects, joined);
    if (st.code() != ErrorCode::kAborted) break;
    // Nothing was committed: the ops the hand-over ran in it go back to the
    // queue, and this op tries again on its own.
    std::vector<WriteOp> again;
    for (Joined& j : joined) again.push_back(std::move(j.op));
    joined.clear();
    Requeue(std::move(again));
    if (attempt >= options_.max_attempts) {
      spdlog::warn("a write was aborted {} times: {}", attempt, st.message());
      st = Status::Unavailable("the store aborted the transaction " + std::to_string(attempt) +
                               " times (" + st.message() + ")");
      break;
    }
  }
  const bool committed = st.ok();
  if (committed && recorded_) recorded_(effects, 1 + joined.size());
  // The ops the hand-over ran share the transaction's fate: their own
  // answer once it committed, its error when it did not.
  for (Joined& j : joined) j.op.after(committed ? std::move(j.result) : st);
  op.after(std::move(st));
  if (committed && answered_) answered_(effects, 1 + joined.size());
}

Status PooledExecutor::TryOnce(WriteOp& op, TxEffects& effects, std::vector<Joined>& joined) {
  auto tx = store_.BeginWrite();
  if (!tx.ok())
    return tx.status().code() == ErrorCode::kAborted ? tx.status() : StoreError(tx.status());
  TxContext ctx{clock_.Now(), random_, {}, {}, hooks_};
  ctx.node_id = node_id_;
  ctx.max_queues = max_queues_;
  for (WriteHook* hook : hooks_) {
    Status begun = hook->BeginTransaction(**tx, ctx);
    if (!begun.ok()) return begun.code() == ErrorCode::kAborted ? begun : StoreError(begun);
  }
  // An error of the op (ABORTED included) rolls its transaction back when
  // `tx` is destroyed; what the hooks wrote goes with it.
  Status st = op.run(**tx, ctx);
  if (!st.ok()) return st;
  if (hand_over_ && !op.background) {
    Status handed = HandOver(**tx, ctx, joined);
    if (!handed.ok()) return handed.code() == ErrorCode::kAborted ? handed : StoreError(handed);
  }
  Status commit = (*tx)->Commit();
  tx->reset();  // release the connection before answering anyone
  if (!commit.ok()) {
    if (commit.code() == ErrorCode::kAborted) return commit;
    spdlog::error("commit of a write failed: {}", commit.ToString());
    return StoreError(commit);
  }
  effects = std::move(ctx.effects);
  return Status::Ok();
}

Status PooledExecutor::HandOver(store::WriteTx& tx, TxContext& ctx, std::vector<Joined>& joined) {
  std::map<std::string, long long> fresh = ctx.effects.became_claimable;
  while (!fresh.empty()) {
    std::vector<WriteOp> woken;
    t_capture = {this, &woken};
    hand_over_(fresh);  // the claims it wakes submit their ops into `woken`
    t_capture = {nullptr, nullptr};
    if (woken.empty()) break;
    std::map<std::string, long long> made;
    std::map<std::string, long long> claimed;
    std::vector<WriteOp> again;
    Status broken;
    for (WriteOp& w : woken) {
      if (!broken.ok()) {
        // The transaction is in an unknown state: the rest wait their turn.
        again.push_back(std::move(w));
        continue;
      }
      SavepointRun r = RunInSavepoint(tx, w, ctx, clock_.Now(), random_, made, claimed);
      if (!r.ran) broken = r.result;  // no savepoint could be set
      if (r.ran && !r.end.ok()) broken = r.end;
      if (!broken.ok() || r.result.code() == ErrorCode::kAborted) {
        again.push_back(std::move(w));  // its writes' fate unknown, or a lost race
        continue;
      }
      joined.push_back({std::move(w), std::move(r.result)});
    }
    Requeue(std::move(again));
    if (!broken.ok()) return broken;
    ForgetHandedOver(ctx.effects.became_claimable, fresh, claimed);
    fresh = std::move(made);
  }
  return Status::Ok();
}

void PooledExecutor::Requeue(std::vector<WriteOp> ops) {
  if (ops.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) queue_.push_front(std::move(*it));
  }
  cv_.notify_all();
}

void PooledExecutor::PauseBeforeTry(int attempt) {
  // Doubling from abort_backoff, at most 32 times it, jittered over its
  // upper half so that racing ops do not collide again in lockstep. Wall
  // time: it paces retries against the database, it decides nothing.
  const auto base = options_.abort_backoff * (1 << std::min(attempt - 2, 5));
  const auto half = static_cast<uint64_t>(base.count() / 2);
  const auto pause = std::chrono::microseconds(half + random_.UniformInclusive(half));
  std::this_thread::sleep_for(pause);
}

}  // namespace redrive::engine
