#include "engine/services/schedule_firing.h"

#include <spdlog/spdlog.h>

#include <span>

#include "core/ids.h"
#include "core/time_format.h"
#include "engine/job_ops.h"
#include "engine/services/schedule_plan.h"

namespace redrive::engine {

ScheduleFiring::ScheduleFiring(Committer& committer, store::Store& store, int batch)
    : committer_(committer), store_(store), batch_(batch) {}

ServiceRun ScheduleFiring::RunOnce(Instant now) {
  ServiceRun run;
  // The run may be re-run (an aborted transaction): it sets, never adds.
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext& ctx) -> Status {
    ctx.now = now;
    REDRIVE_ASSIGN_OR_RETURN(std::vector<Schedule> due, tx.SelectDueSchedules(now, batch_));
    run.more = static_cast<int>(due.size()) >= batch_;
    run.changed = 0;
    for (Schedule& schedule : due) {
      REDRIVE_RETURN_IF_ERROR(schedule_ops::FireDue(tx, ctx, schedule, now));
      ++run.changed;
    }
    return Status::Ok();
  });
  if (!st.ok()) {
    spdlog::warn("{}: {}", duty::kSchedules, st.ToString());
    run.changed = 0;
    run.more = false;
  }
  if (auto tx = store_.BeginRead(); tx.ok()) {
    if (auto next = (*tx)->NextScheduleDue(); next.ok()) run.next_run = *next;
  }
  return run;
}

namespace schedule_ops {
namespace {

bool StillRunning(JobStatus s) {
  return s == JobStatus::kPending || s == JobStatus::kScheduled || s == JobStatus::kProcessing;
}

// Applies the overlap policy. Returns the reason to skip this run, if any.
Result<std::optional<std::string>> ResolveOverlap(store::WriteTx& tx, TxContext& ctx,
                                                  const Schedule& schedule) {
  if (schedule.overlap_policy == OverlapPolicy::kAllow || !schedule.last_job_id) {
    return std::optional<std::string>();
  }
  Result<Job> previous = tx.GetJob(*schedule.last_job_id);
  if (!previous.ok()) {
    // Deleted by retention or by hand: nothing overlaps.
    if (previous.status().code() == ErrorCode::kNotFound) return std::optional<std::string>();
    return previous.status();
  }
  if (!StillRunning(previous->status)) return std::optional<std::string>();
  if (schedule.overlap_policy == OverlapPolicy::kSkipIfRunning) {
    return std::optional<std::string>("skipped: the previous job " + previous->id + " is still " +
                                      JobStatusName(previous->status));
  }
  Result<Change> cancelled = ops::ApplyToLoaded(tx, ctx, *previous, event::Cancel{});
  // A job that finished meanwhile (CONFLICT) needs no cancelling.
  if (!cancelled.ok() && cancelled.status().code() != ErrorCode::kConflict) {
    return cancelled.status();
  }
  return std::optional<std::string>();
}

EnqueueParams JobFor(const Schedule& schedule, Instant fire_time, ScheduleRunKind kind) {
  EnqueueParams p;
  p.queue_name = schedule.queue_name;
  p.payload_json = schedule.payload_template;
  p.priority = schedule.priority;
  p.max_retries = schedule.max_retries;
  p.timeout_seconds = schedule.timeout_seconds;
  p.tags = schedule.tags;
  p.tags[std::string(kScheduleTag)] = schedule.id;
  // A manual trigger is a new run each time; a cron time is one job at most.
  if (kind != ScheduleRunKind::kManual) {
    p.idempotency_key = "schedule:" + schedule.id + ":" + std::to_string(ToMicros(fire_time));
  }
  return p;
}

}  // namespace

Result<ScheduleRun> Fire(store::WriteTx& tx, TxContext& ctx, Schedule& schedule, Instant fire_time,
                         ScheduleRunKind kind) {
  ScheduleRun run;
  bool created = false;
  run.id = NewUuidV7(ctx.now, ctx.random);
  run.schedule_id = schedule.id;
  run.fire_time = fire_time;
  run.kind = kind;
  run.created_at = ctx.now;
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> skip, ResolveOverlap(tx, ctx, schedule));
  if (skip) {
    run.error = std::move(skip);
    ctx.effects.schedule_runs["skipped"] += 1;
  } else {
    const EnqueueParams p = JobFor(schedule, fire_time, kind);
    REDRIVE_ASSIGN_OR_RETURN(auto results, ops::EnqueueBatch(tx, ctx, std::span(&p, 1)));
    Result<EnqueueResult>& enqueued = results[0];
    if (!enqueued.ok()) {
      run.error = "enqueue refused: " + enqueued.status().message();
    } else {
      run.job_id = enqueued->id;
      schedule.last_job_id = enqueued->id;
      if (enqueued->created) {
        created = true;
        schedule.run_count += 1;
        ctx.effects.schedule_runs["fired"] += 1;
      }
    }
  }
  schedule.last_run_at = fire_time;
  REDRIVE_RETURN_IF_ERROR(tx.InsertScheduleRun(run));
  // schedule.triggered, for a job this run created (an idempotent repeat
  // of a fire time already enqueued announces nothing twice).
  if (created) REDRIVE_RETURN_IF_ERROR(ctx.Wrote(tx, ScheduleWrite{schedule, run}));
  return run;
}

Status FireDue(store::WriteTx& tx, TxContext& ctx, Schedule& schedule, Instant now) {
  const SchedulePlan plan = PlanDueRuns(schedule, now);
  ScheduleRun note;
  note.schedule_id = schedule.id;
  note.fire_time = schedule.next_run_at.value_or(now);
  note.created_at = ctx.now;
  if (plan.error) {
    // It can never fire again as it is: pause it, and say why in its history.
    note.id = NewUuidV7(ctx.now, ctx.random);
    note.error = "paused: " + *plan.error;
    REDRIVE_RETURN_IF_ERROR(tx.InsertScheduleRun(note));
    schedule.is_active = false;
    schedule.next_run_at.reset();
    schedule.updated_at = ctx.now;
    return tx.UpdateSchedule(schedule);
  }
  if (plan.missed > 0) ctx.effects.schedule_runs["missed"] += plan.missed;
  if (plan.uncovered > 0) {
    note.id = NewUuidV7(ctx.now, ctx.random);
    note.fire_time = plan.first_missed.value_or(note.fire_time);
    note.error = "missed " + std::to_string(plan.uncovered) + " fire time(s) from " +
                 FormatTime(note.fire_time) + " (missed_run_policy " +
                 MissedRunPolicyName(schedule.missed_run_policy) + ")";
    REDRIVE_RETURN_IF_ERROR(tx.InsertScheduleRun(note));
  }
  for (const PlannedRun& planned : plan.runs) {
    REDRIVE_RETURN_IF_ERROR(Fire(tx, ctx, schedule, planned.fire_time, planned.kind).status());
  }
  schedule.next_run_at = plan.next_run_at;
  schedule.updated_at = ctx.now;
  return tx.UpdateSchedule(schedule);
}

}  // namespace schedule_ops

}  // namespace redrive::engine
