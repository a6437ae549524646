// Engine internals shared by engine*.cc. Not part of the engine's interface.
#pragma once

#include <memory>
#include <optional>

#include "engine/background_loop.h"
#include "engine/committer.h"
#include "engine/engine.h"
#include "engine/metrics.h"
#include "engine/read_thread_pool.h"
#include "engine/services/duties.h"
#include "engine/waiters.h"
#include "engine/webhooks/dispatcher.h"
#include "engine/webhooks/outbox.h"
#include "engine/webhooks/subscriptions.h"

namespace redrive::engine {

// Every queue with its counts (GET /queues and the /metrics gauges).
Result<std::vector<QueueView>> ListQueueViews(store::ReadTx& tx);

class Engine::Impl {
 public:
  Impl(store::Store& store, const Clock& clock, Random& random, EngineOptions options);

  // Runs `body` in the next group commit; `done` gets its result after the commit.
  template <typename T>
  void Write(std::function<Result<T>(store::WriteTx&, TxContext&)> body, Callback<T> done) {
    auto result = std::make_shared<std::optional<Result<T>>>();
    committer.Submit(
        {[body = std::move(body), result](store::WriteTx& tx, TxContext& ctx) -> Status {
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

  // A webhook write: `body`, then the webhook list read back in the same
  // transaction; once committed (still on the committer thread, before the
  // next batch) that list becomes the subscription snapshot.
  template <typename T>
  void WriteWebhooks(std::function<Result<T>(store::WriteTx&, TxContext&)> body, Callback<T> done) {
    auto all = std::make_shared<std::vector<Webhook>>();
    Write<T>(
        [body = std::move(body), all](store::WriteTx& tx, TxContext& ctx) -> Result<T> {
          REDRIVE_ASSIGN_OR_RETURN(T value, body(tx, ctx));
          REDRIVE_ASSIGN_OR_RETURN(*all, tx.ListWebhooks());
          return value;
        },
        [this, all, done = std::move(done)](Result<T> r) {
          if (r.ok()) subscriptions.Set(*all);
          done(std::move(r));
        });
  }

  // Runs `body` on a reader thread with a read snapshot.
  template <typename T>
  void Read(std::function<Result<T>(store::ReadTx&)> body, Callback<T> done) {
    readers.Post({[body = std::move(body), done](store::ReadTx& tx) { done(body(tx)); },
                  [done](Status st) { done(std::move(st)); }});
  }

  void OnCommitted(const TxEffects& effects);

  struct ClaimState;
  void ClaimAttempt(std::shared_ptr<ClaimState> state);

  store::Store& store;
  const Clock& clock;
  Random& random;
  EngineOptions options;
  // Before the committer: it is fed from the committer's thread.
  EngineMetrics metrics;
  ThroughputHistory throughput;
  Waiters waiters;
  // The committer's write hooks (before it: it calls them until it stops):
  // the job counters, and the webhook outbox with the subscriptions it
  // consults.
  JobEventCounter job_event_counter;
  SubscriptionCache subscriptions;
  WebhookOutbox outbox{subscriptions};
  Committer committer;
  ReadThreadPool readers;
  // Which background duties this node leads (set from the store at Start).
  Duties duties;
  std::unique_ptr<store::Leadership> leadership;
  BackgroundLoop loop;
  // Delivers what the outbox wrote (null without a webhook sender).
  std::unique_ptr<WebhookDispatcher> dispatcher;
  bool started = false;
};

}  // namespace redrive::engine
