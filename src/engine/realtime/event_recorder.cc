#include "engine/realtime/event_recorder.h"

#include <chrono>
#include <cstring>

#include "core/outcome.h"

namespace redrive::engine {

namespace {

RealtimeEvent Base(RealtimeEventType type, const Job& job, Instant now) {
  RealtimeEvent e;
  e.type = type;
  e.at = now;
  e.job_id = job.id;
  e.queue_name = job.queue_name;
  return e;
}

// Whether core's outcome table counts `outcome` as a failed attempt.
bool CountsAsFailure(Outcome outcome) {
  for (const CountedEvent& c : Describe(outcome).counts) {
    if (c.event != nullptr && std::strcmp(c.event, "failed") == 0) return true;
  }
  return false;
}

}  // namespace

std::vector<RealtimeEvent> EventsOfJobWrite(const JobWrite& write, Instant now) {
  const Job& job = write.job;
  std::vector<RealtimeEvent> events;
  if (write.outcome == Outcome::kCreated) {
    RealtimeEvent e = Base(RealtimeEventType::kJobCreated, job, now);
    e.priority = job.priority;
    events.push_back(std::move(e));
    return events;
  }
  if (write.before_status && *write.before_status != job.status) {
    RealtimeEvent e = Base(RealtimeEventType::kJobStatusChange, job, now);
    e.old_status = *write.before_status;
    e.new_status = job.status;
    events.push_back(std::move(e));
  }
  if (write.outcome == Outcome::kCompleted) {
    RealtimeEvent e = Base(RealtimeEventType::kJobCompleted, job, now);
    if (job.started_at && job.completed_at) {
      e.duration_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(*job.completed_at - *job.started_at)
              .count();
    }
    e.result = job.result;
    events.push_back(std::move(e));
  } else if (CountsAsFailure(write.outcome)) {
    RealtimeEvent e = Base(RealtimeEventType::kJobFailed, job, now);
    e.error = job.last_error.value_or("");
    e.retry_count = job.retry_count;
    e.will_retry = job.status == JobStatus::kPending || job.status == JobStatus::kScheduled;
    events.push_back(std::move(e));
  }
  return events;
}

Status RealtimeRecorder::OnJob(store::WriteTx&, TxContext& ctx, const JobWrite& write) {
  if (!hub_.HasSubscribers()) return Status::Ok();
  for (RealtimeEvent& e : EventsOfJobWrite(write, ctx.now)) {
    ctx.effects.realtime_events.push_back(std::move(e));
  }
  return Status::Ok();
}

Status RealtimeRecorder::OnWorker(store::WriteTx&, TxContext& ctx, const WorkerWrite& write) {
  if (!hub_.HasSubscribers()) return Status::Ok();
  RealtimeEvent e;
  e.type = write.outcome == WorkerOutcome::kRegistered ? RealtimeEventType::kWorkerRegistered
                                                       : RealtimeEventType::kWorkerDeregistered;
  e.at = ctx.now;
  e.worker_id = write.worker.id;
  e.queue_name = write.worker.queue_name;
  ctx.effects.realtime_events.push_back(std::move(e));
  return Status::Ok();
}

}  // namespace redrive::engine
