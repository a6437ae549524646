#include "engine/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "engine/engine_impl.h"
#include "engine/services/audit_retention.h"
#include "engine/services/autoredrive_runner.h"
#include "engine/services/clock_check.h"
#include "engine/services/delivery_retention.h"
#include "engine/services/fingerprint_backfill.h"
#include "engine/services/job_sweep.h"
#include "engine/services/operation_runner.h"
#include "engine/services/planner_statistics.h"
#include "engine/services/retention.h"
#include "engine/services/schedule_firing.h"
#include "engine/services/schedule_run_retention.h"
#include "engine/services/throughput_sampler.h"
#include "engine/services/worker_pruning.h"
#include "engine/services/write_share.h"

namespace redrive::engine {

namespace {

// Cross-node wake-ups when the store is shared by several nodes.
std::shared_ptr<Notifier> MakeNotifier(store::Store& store) {
  if (auto channel = store.NewWakeChannel()) {
    return std::make_shared<ChannelNotifier>(std::move(channel));
  }
  return std::make_shared<LocalNotifier>();
}

}  // namespace

Engine::Impl::Impl(store::Store& store, const Clock& clock, Random& random, EngineOptions options)
    : store(store),
      clock(clock),
      random(random),
      options(options),
      notifier(options.notifier ? options.notifier : MakeNotifier(store)),
      events(EventHubOptions{.max_streams = options.max_event_streams,
                             .buffer_events = options.event_buffer}),
      writer(MakeWriteExecutor(
          store, clock, random,
          {.max_batch = options.max_batch, .max_attempts = options.write_attempts},
          [this](const TxEffects& e, size_t n) { metrics.OnCommitted(e, n); },
          [this](const TxEffects& e, size_t) { OnCommitted(e); })),
      readers(store, options.reader_threads),
      duties(options.node_id.empty() ? DefaultNodeId() : options.node_id),
      loop(clock, waiters, duties, options.max_idle) {
  WriteExecutor& committer = *writer;     // what the services and the dispatcher write through
  committer.SetNodeId(duties.node_id());  // on every history entry this node writes
  committer.SetMaxQueues(options.max_queues);
  // New jobs go to this node's parked claims in the transaction that makes
  // them (a group committer's; other nodes hear of what is left once it is
  // committed: OnCommitted).
  committer.SetHandOver([this](const std::map<std::string, long long>& claimable) {
    return notifier->HandOver(claimable) > 0;
  });
  loop.Add(MakeScheduler(committer, store, options.sweep_batch));
  loop.Add(MakeLeaseReaper(committer, store, options.sweep_batch));
  loop.Add(MakeDeadlineSweep(committer, store, options.sweep_batch));
  loop.Add(std::make_unique<ScheduleFiring>(committer, store, options.sweep_batch));
  loop.Add(std::make_unique<OperationRunner>(committer, store, clock, options.operation_batch,
                                             options.operation_yield_share));
  loop.Add(std::make_unique<AutoredriveRunner>(committer, store));
  loop.Add(std::make_unique<Retention>(committer, store, options.sweep_batch,
                                       options.retention_interval));
  if (options.prune_workers_after > std::chrono::seconds::zero()) {
    loop.Add(std::make_unique<WorkerPruning>(
        committer, options.sweep_batch, options.prune_workers_after, options.retention_interval));
  }
  loop.Add(std::make_unique<ThroughputSampler>(
      metrics, duties.node_id(), options.throughput_interval,
      RecordThroughputInStore(committer,
                              std::max(options.throughput_window, options.activity_window))));
  loop.Add(std::make_unique<ClockCheck>(
      clock, [&store] { return store.DatabaseNow(); }, clock_skew,
      std::chrono::duration_cast<Micros>(options.max_clock_skew), options.clock_check_interval));
  const store::StoreTraits traits = store.traits();
  if (options.share_write_connections &&
      traits.write_model == store::WriteModel::kTransactionPerRequest &&
      traits.writer_connections > 1) {
    loop.Add(std::make_unique<WriteShareService>(
        traits.writer_connections, [this](Instant now) { return duties.LiveNodes(now); },
        [&committer](size_t ops) { committer.LimitConcurrency(ops); }, write_share));
  }
  loop.Add(std::make_unique<PlannerStatisticsRefresh>(
      [&store] { return store.RefreshPlannerStatistics(); }, kPlannerStatisticsInterval));
  loop.Add(std::make_unique<DeliveryRetention>(
      committer, options.sweep_batch, options.webhooks.retention, options.retention_interval));
  loop.Add(std::make_unique<ScheduleRunRetention>(
      committer, options.sweep_batch, options.schedule_history_keep,
      options.schedule_history_retention, options.retention_interval));
  loop.Add(std::make_unique<AuditRetention>(committer, options.sweep_batch, options.audit_retention,
                                            options.operation_retention,
                                            options.retention_interval));
  loop.Add(std::make_unique<ErrorFingerprintBackfill>(committer, options.sweep_batch,
                                                      options.retention_interval));
  committer.AddHook(&job_event_counter);
  committer.AddHook(&outbox);
  committer.AddHook(&realtime);
  if (options.webhook_sender) {
    dispatcher = std::make_unique<WebhookDispatcher>(
        committer, store, clock, *options.webhook_sender, subscriptions, duties, options.webhooks);
  }
}

// Called on executor threads (several at once with a PooledExecutor): the
// notifier, the loop's and the dispatcher's Nudge are thread-safe.
void Engine::Impl::OnCommitted(const TxEffects& e) {
  if (!e.became_claimable.empty() || !e.wake_all.empty()) {
    notifier->Publish({e.became_claimable, e.wake_all});
  }
  for (const auto& t : {e.earliest_scheduled, e.earliest_lease_expiry, e.earliest_deadline}) {
    if (t) loop.Nudge(*t);
  }
  if (e.wrote_deliveries && dispatcher) dispatcher->Nudge();
  if (!e.realtime_events.empty()) events.Publish(e.realtime_events);
}

Engine::Engine(store::Store& store, const Clock& clock, Random& random, EngineOptions options)
    : impl_(std::make_unique<Impl>(store, clock, random, options)) {}

Engine::~Engine() { Stop(); }

Status Engine::Start() {
  if (impl_->started) return Status::Ok();
  // spdlog's registry (a function-local static inside libspdlog) is made
  // here, before the engine's threads exist, rather than by whichever thread
  // logs first: the thread starts then order it before every use. Made by a
  // background thread while the caller's thread logged, TSan (which does not
  // see into the uninstrumented library's static guard) reported a race.
  spdlog::default_logger_raw();
  REDRIVE_RETURN_IF_ERROR(impl_->store.Ping());
  REDRIVE_RETURN_IF_ERROR(impl_->subscriptions.Refresh(impl_->store));
  REDRIVE_ASSIGN_OR_RETURN(impl_->leadership, impl_->store.NewLeadership(impl_->duties.node_id()));
  impl_->duties.SetLeadership(impl_->leadership.get());
  REDRIVE_RETURN_IF_ERROR(impl_->notifier->Start(impl_->waiters));
  impl_->writer->Start();
  impl_->readers.Start();
  impl_->loop.Start();
  if (impl_->dispatcher && impl_->options.webhooks.run_threads) impl_->dispatcher->Start();
  impl_->started = true;
  impl_->started_at = impl_->clock.Now();
  return Status::Ok();
}

void Engine::Stop() {
  if (!impl_->started) return;
  impl_->started = false;
  // Parked long-polls answer now (with no jobs) so clients are not left hanging.
  impl_->waiters.Close();
  impl_->loop.Stop();
  // Before the writer: senders in flight record their outcomes through it.
  if (impl_->dispatcher) impl_->dispatcher->Stop();
  impl_->writer->Stop();  // commits everything already queued
  impl_->events.Stop();   // after the last commit's events: ends every stream
  impl_->notifier->Stop();
  impl_->readers.Stop();
  // Last: nothing of this node runs a duty any more.
  impl_->duties.ReleaseAll();
}

EventHub& Engine::events() { return impl_->events; }

void Engine::Impl::RefreshSubscriptions() {
  // On failure the dispatcher's periodic refresh catches up.
  if (Status st = subscriptions.Refresh(store); !st.ok()) {
    spdlog::warn("webhook subscriptions: {}", st.ToString());
  }
}

const std::string& Engine::node_id() const { return impl_->duties.node_id(); }

size_t Engine::parked_claims() const { return impl_->waiters.size(); }

void Engine::ScrapeMetrics(Callback<std::string> done) {
  // The gauges come from one read snapshot, so they are consistent with each
  // other; the counters are read after it (they may be a commit ahead).
  impl_->Read<std::string>(
      [this](store::ReadTx& tx) -> Result<std::string> {
        REDRIVE_ASSIGN_OR_RETURN(auto queues, ListQueueViews(tx));
        return RenderQueueGauges(queues, impl_->clock.Now()) +
               RenderLongPollGauge(impl_->waiters.CountByQueue()) + impl_->duties.RenderGauge() +
               impl_->clock_skew.RenderGauge() + impl_->write_share.RenderGauge() +
               impl_->metrics.Render();
      },
      std::move(done));
}

void Engine::Throughput(std::optional<std::string> queue_name,
                        Callback<std::vector<ThroughputPoint>> done) {
  const Instant after = impl_->clock.Now() - impl_->options.throughput_window;
  impl_->Read<std::vector<ThroughputPoint>>(
      [queue_name = std::move(queue_name), after](store::ReadTx& tx) {
        return tx.ReadThroughput(queue_name, after);
      },
      std::move(done));
}

void Engine::Dashboard(Callback<DashboardView> done) {
  impl_->Read<DashboardView>(
      [this](store::ReadTx& tx) -> Result<DashboardView> {
        DashboardView v;
        v.now = impl_->clock.Now();
        v.started_at = impl_->started_at;
        v.activity_window = impl_->options.activity_window;
        REDRIVE_ASSIGN_OR_RETURN(v.queues, ListQueueViews(tx));
        REDRIVE_ASSIGN_OR_RETURN(v.workers, tx.ListWorkers(kMaxListWorkersLimit, 0));
        for (WorkerInfo& w : v.workers) w.status = EffectiveWorkerStatus(w, v.now);
        REDRIVE_ASSIGN_OR_RETURN(auto points,
                                 tx.ReadThroughput(std::nullopt, v.now - v.activity_window));
        for (const ThroughputPoint& p : points) v.recent += p.counts;
        REDRIVE_ASSIGN_OR_RETURN(v.last_day,
                                 tx.SumHourlyThroughput(std::nullopt, FirstHourOfLastDay(v.now)));
        return v;
      },
      std::move(done));
}

std::chrono::seconds Engine::throughput_interval() const {
  return impl_->options.throughput_interval;
}

long long Engine::RunServicesOnce() { return impl_->loop.RunAllOnce(impl_->clock.Now()); }

long long Engine::RunWebhooksOnce() { return impl_->dispatcher ? impl_->dispatcher->RunOnce() : 0; }

std::optional<ClockSkewReport> Engine::clock_skew() const { return impl_->clock_skew.Get(); }

void Engine::Ready(StatusCallback done) {
  impl_->Read<bool>(
      [this](store::ReadTx&) -> Result<bool> {
        REDRIVE_RETURN_IF_ERROR(impl_->store.Ping());
        return true;
      },
      [done](Result<bool> r) { done(r.status()); });
}

}  // namespace redrive::engine
