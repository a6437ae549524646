// The schedule service: fires due schedules (cron jobs). Each pass selects a
// bounded batch of active schedules whose next_run_at has come (on
// PostgreSQL FOR UPDATE SKIP LOCKED, and only on the node leading the
// `schedules` duty), and for each one, in one transaction: plans its runs
// (schedule_plan.h), enqueues each through the API's own enqueue path
// (ops::EnqueueBatch: queue defaults and limits, the "created" history
// entry, metrics, webhooks) with the idempotency key
// schedule:<id>:<fire time in µs>, records each run, and advances
// next_run_at. The enqueue, the run and the advance commit together, and the
// key makes a fire time enqueue at most one job whatever node or restart
// tries it again.
#pragma once

#include <memory>

#include "core/schedule.h"
#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"
#include "store/store.h"

namespace redrive::engine {

class ScheduleFiring final : public Service {
 public:
  ScheduleFiring(Committer& committer, store::Store& store, int batch);
  const char* name() const override { return duty::kSchedules; }
  const char* duty() const override { return duty::kSchedules; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  store::Store& store_;
  int batch_;
};

namespace schedule_ops {

// One run of `schedule` at `fire_time`: applies its overlap policy (the
// previous job still pending, scheduled or processing is skipped over or
// cancelled through the normal cancel path), enqueues the job, records the
// run, and updates `schedule` in memory (last_run_at, last_job_id,
// run_count); the caller writes it. A refused enqueue (the queue is
// disabled) is recorded as the run's error, not returned.
Result<ScheduleRun> Fire(store::WriteTx& tx, TxContext& ctx, Schedule& schedule, Instant fire_time,
                         ScheduleRunKind kind);

// Plans and fires a due schedule's runs at `now`, then writes it with its
// next_run_at advanced. REQUIRES: schedule.next_run_at <= now.
Status FireDue(store::WriteTx& tx, TxContext& ctx, Schedule& schedule, Instant now);

}  // namespace schedule_ops

}  // namespace redrive::engine
