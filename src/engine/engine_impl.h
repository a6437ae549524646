// Engine internals shared by engine*.cc. Not part of the engine's interface.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engine/background_loop.h"
#include "engine/engine.h"
#include "engine/metrics.h"
#include "engine/notifier.h"
#include "engine/read_thread_pool.h"
#include "engine/realtime/event_hub.h"
#include "engine/realtime/event_recorder.h"
#include "engine/services/duties.h"
#include "engine/services/write_share.h"
#include "engine/waiters.h"
#include "engine/webhooks/dispatcher.h"
#include "engine/webhooks/outbox.h"
#include "engine/webhooks/subscriptions.h"
#include "engine/write_executor.h"

namespace redrive::engine {

// Every queue with its counts (GET /queues and the /metrics gauges).
Result<std::vector<QueueView>> ListQueueViews(store::ReadTx& tx);

class Engine::Impl {
 public:
  Impl(store::Store& store, const Clock& clock, Random& random, EngineOptions options);

  // Runs `body` in a write transaction; `done` gets its result after the
  // commit. `body` may run more than once (write_executor.h): each run
  // replaces `result` whole, and only the committed run's is answered.
  template <typename T>
  void Write(std::function<Result<T>(store::WriteTx&, TxContext&)> body, Callback<T> done) {
    auto result = std::make_shared<std::optional<Result<T>>>();
    writer->Submit({[body = std::move(body), result](store::WriteTx& tx, TxContext& ctx) -> Status {
                      auto r = body(tx, ctx);
                      Status st = r.status();
                      result->emplace(std::move(r));
                      return st;
                    },
                    [result, done = std::move(done)](Status st) {
                      if (!st.ok()) return done(std::move(st));
                      done(std::move(**result));
                    }});
  }

  // A webhook write: `body`; once committed, and before `done` is answered,
  // the subscription snapshot is re-read from a fresh read snapshot
  // (SubscriptionCache::Refresh), so every request submitted after the
  // answer sees the change. Not the list read inside the transaction: with
  // concurrent transactions neither of two webhook writes sees the other's
  // row, and an older list could be set after a newer one. Refreshes are
  // serialized and each reads after its own commit, so the last one set
  // reads the newest state.
  template <typename T>
  void WriteWebhooks(std::function<Result<T>(store::WriteTx&, TxContext&)> body, Callback<T> done) {
    Write<T>(std::move(body), [this, done = std::move(done)](Result<T> r) {
      if (r.ok()) RefreshSubscriptions();
      done(std::move(r));
    });
  }
  void RefreshSubscriptions();

  // Runs `body` on a reader thread with a read snapshot, and answers once
  // everything that snapshot could see is durable (WriteExecutor::
  // WhenDurable: with a pipelined store the latest commits may not be yet;
  // an answer that had to wait goes back to a reader thread).
  template <typename T>
  void Read(std::function<Result<T>(store::ReadTx&)> body, Callback<T> done) {
    readers.Post({[this, body = std::move(body), done](store::ReadTx& tx) {
                    auto result = std::make_shared<Result<T>>(body(tx));
                    const std::thread::id reader = std::this_thread::get_id();
                    writer->WhenDurable([this, result, done, reader](Status durable) {
                      auto answer = [result, done, durable = std::move(durable)]() mutable {
                        if (!durable.ok()) return done(std::move(durable));
                        done(std::move(*result));
                      };
                      if (std::this_thread::get_id() == reader) return answer();
                      readers.PostReply(std::move(answer));
                    });
                  },
                  [done](Status st) { done(std::move(st)); }});
  }

  void OnCommitted(const TxEffects& effects);

  struct ClaimState;
  void ClaimAttempt(std::shared_ptr<ClaimState> state);
  // Requests that run as one op (EngineOptions::coalesce_writes): a request
  // joins the open group of its kind while that group's op waits for the
  // writer; the op's first run closes it, and later runs (a PostgreSQL
  // retry) run the same members.
  struct ClaimGroup;     // claims of one queue: ops::ClaimFor
  struct GroupClaim;     // what a claim group's op returns
  struct JobEventGroup;  // completes, fails and heartbeats: ops::ApplyToJobs
  struct EnqueueGroup;   // enqueues of any queue: ops::EnqueueBatch
  void RunClaimGroup(std::shared_ptr<ClaimGroup> group);
  void CloseClaimGroup(const ClaimGroup& group);
  // Closes `group` if it is still the open one of its kind (`open`:
  // open_job_events or open_enqueues).
  template <typename Group>
  void CloseGroup(std::shared_ptr<Group>& open, const std::shared_ptr<Group>& group) {
    std::lock_guard lock(coalesce_mu);
    if (open == group) open.reset();
  }
  void AfterClaim(const std::shared_ptr<ClaimState>& state, uint64_t seen, Result<ClaimResult> r);
  void ApplyJobEvent(std::string job_id, Event event, QueueScope scope, Callback<Job> done);

  store::Store& store;
  const Clock& clock;
  Random& random;
  EngineOptions options;
  // Before the write executor: it is fed from the executor's threads.
  EngineMetrics metrics;
  ClockSkewState clock_skew;    // written by the clock-check service
  WriteShareState write_share;  // written by the write-share service
  Waiters waiters;
  // options.notifier, else a ChannelNotifier on the store's wake channel,
  // else a LocalNotifier.
  std::shared_ptr<Notifier> notifier;
  // The executor's write hooks (before it: it calls them until it stops):
  // the job counters, and the webhook outbox with the subscriptions it
  // consults.
  JobEventCounter job_event_counter;
  SubscriptionCache subscriptions;
  WebhookOutbox outbox{subscriptions};
  // Live events: the recorder (a write hook) makes them while the hub has
  // subscribers; OnCommitted publishes them after the commit.
  EventHub events;
  RealtimeRecorder realtime{events};
  // Every write goes through it: a GroupCommitter or a PooledExecutor, as
  // the store's traits say.
  std::unique_ptr<WriteExecutor> writer;
  ReadThreadPool readers;
  // Which background duties this node leads (set from the store at Start).
  Duties duties;
  std::unique_ptr<store::Leadership> leadership;
  BackgroundLoop loop;
  // Delivers what the outbox wrote (null without a webhook sender).
  std::unique_ptr<WebhookDispatcher> dispatcher;
  std::mutex coalesce_mu;
  std::map<std::string, std::shared_ptr<ClaimGroup>, std::less<>> open_claims;  // by queue
  std::shared_ptr<JobEventGroup> open_job_events;
  std::shared_ptr<EnqueueGroup> open_enqueues;

  bool started = false;
  Instant started_at{};  // when Start() succeeded (GET /dashboard's uptime)
};

}  // namespace redrive::engine
