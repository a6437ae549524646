// Schedules (cron jobs): create, read, update, delete, pause, resume,
// trigger, history. Firing on time is the schedule service's
// (services/schedule_firing.h); these share its Fire for manual triggers.
#include "core/ids.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/services/schedule_firing.h"
#include "engine/services/schedule_plan.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

namespace {

// Sets next_run_at from `now` for an active schedule (clears it for a paused
// one); VALIDATION naming cron_expression or timezone when either is wrong.
Status Arm(Schedule& s, TxContext& ctx) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<Instant> next, NextRunAfter(s, ctx.now));
  s.next_run_at = s.is_active ? next : std::nullopt;
  // The schedule service may be asleep past the new time: nudge it.
  if (s.next_run_at &&
      (!ctx.effects.earliest_scheduled || *s.next_run_at < *ctx.effects.earliest_scheduled)) {
    ctx.effects.earliest_scheduled = s.next_run_at;
  }
  return Status::Ok();
}

// Sets next_run_at for a paused schedule `s` becoming active again with the
// same time rule. Under run_once and backfill, the first fire time after its
// pause (its updated_at: the pause, or a change made while paused), so that
// the schedule service treats the fire times it missed while paused as it
// treats those of a server that was down; under skip, from now.
Status Resume(Schedule& s, TxContext& ctx) {
  if (s.missed_run_policy == MissedRunPolicy::kSkip) return Arm(s, ctx);
  REDRIVE_ASSIGN_OR_RETURN(std::optional<Instant> first_missed, NextRunAfter(s, s.updated_at));
  if (!first_missed || *first_missed >= ctx.now) return Arm(s, ctx);
  s.next_run_at = first_missed;
  ctx.effects.earliest_scheduled = first_missed;  // due now: wake the service
  return Status::Ok();
}

void ApplyPatch(Schedule& s, const SchedulePatch& p) {
  if (p.name) s.name = *p.name;
  if (p.description) s.description = *p.description;
  if (p.cron_expression) s.cron_expression = *p.cron_expression;
  if (p.timezone) s.timezone = *p.timezone;
  if (p.queue_name) s.queue_name = *p.queue_name;
  if (p.payload_template) s.payload_template = *p.payload_template;
  if (p.priority) s.priority = *p.priority;
  if (p.max_retries) s.max_retries = *p.max_retries;
  if (p.timeout_seconds) s.timeout_seconds = *p.timeout_seconds;
  if (p.tags) s.tags = *p.tags;
  if (p.metadata) s.metadata = *p.metadata;
  if (p.is_active) s.is_active = *p.is_active;
  if (p.missed_run_policy) s.missed_run_policy = *p.missed_run_policy;
  if (p.overlap_policy) s.overlap_policy = *p.overlap_policy;
  if (p.backfill_limit) s.backfill_limit = *p.backfill_limit;
}

}  // namespace

void Engine::CreateSchedule(CreateScheduleParams p, Callback<Schedule> done) {
  const size_t max_schedules = impl_->options.max_schedules;
  impl_->Write<Schedule>(
      [p = std::move(p), max_schedules](WriteTx& tx, TxContext& ctx) -> Result<Schedule> {
        REDRIVE_ASSIGN_OR_RETURN(long long count, tx.CountSchedules());
        if (static_cast<size_t>(count) >= max_schedules) {
          return Status::Conflict("the server holds its maximum of " +
                                  std::to_string(max_schedules) +
                                  " schedules (--max-schedules); delete one first");
        }
        Schedule s;
        s.id = NewUuidV7(ctx.now, ctx.random);
        s.name = p.name;
        s.description = p.description;
        s.cron_expression = p.cron_expression;
        s.timezone = p.timezone;
        s.queue_name = p.queue_name;
        s.payload_template = p.payload_template;
        s.priority = p.priority;
        s.max_retries = p.max_retries;
        s.timeout_seconds = p.timeout_seconds;
        s.tags = p.tags;
        s.metadata = p.metadata;
        s.is_active = p.is_active;
        s.missed_run_policy = p.missed_run_policy;
        s.overlap_policy = p.overlap_policy;
        s.backfill_limit = p.backfill_limit;
        s.created_at = s.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(Arm(s, ctx));
        REDRIVE_RETURN_IF_ERROR(tx.InsertSchedule(s));
        return s;
      },
      std::move(done));
}

void Engine::GetSchedule(std::string id, Callback<Schedule> done) {
  impl_->Read<Schedule>([id = std::move(id)](ReadTx& tx) { return tx.GetSchedule(id); },
                        std::move(done));
}

void Engine::ListSchedules(ListSchedulesParams p, Callback<std::vector<Schedule>> done) {
  store::ScheduleFilter f{
      .is_active = p.is_active, .queue_name = p.queue_name, .limit = p.limit, .offset = p.offset};
  impl_->Read<std::vector<Schedule>>([f](ReadTx& tx) { return tx.ListSchedules(f); },
                                     std::move(done));
}

void Engine::UpdateSchedule(std::string id, SchedulePatch patch, Callback<Schedule> done) {
  impl_->Write<Schedule>(
      [id = std::move(id), patch = std::move(patch)](WriteTx& tx,
                                                     TxContext& ctx) -> Result<Schedule> {
        REDRIVE_ASSIGN_OR_RETURN(Schedule s, tx.GetSchedule(id));
        const Schedule before = s;
        ApplyPatch(s, patch);
        // A new time rule or a pause starts from now, a resume as its
        // missed_run_policy says (Resume); otherwise the schedule keeps its
        // place (and its due run, if one is due).
        const bool same_rule =
            s.cron_expression == before.cron_expression && s.timezone == before.timezone;
        if (same_rule && s.is_active && !before.is_active) {
          REDRIVE_RETURN_IF_ERROR(Resume(s, ctx));
        } else if (!same_rule || s.is_active != before.is_active) {
          REDRIVE_RETURN_IF_ERROR(Arm(s, ctx));
        }
        s.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.UpdateSchedule(s));
        return s;
      },
      std::move(done));
}

void Engine::DeleteSchedule(std::string id, StatusCallback done) {
  impl_->Write<bool>(
      [id = std::move(id)](WriteTx& tx, TxContext&) -> Result<bool> {
        REDRIVE_RETURN_IF_ERROR(tx.DeleteSchedule(id));
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

void Engine::PauseSchedule(std::string id, Callback<Schedule> done) {
  UpdateSchedule(std::move(id), SchedulePatch{.is_active = false}, std::move(done));
}

void Engine::ResumeSchedule(std::string id, Callback<Schedule> done) {
  impl_->Write<Schedule>(
      [id = std::move(id)](WriteTx& tx, TxContext& ctx) -> Result<Schedule> {
        REDRIVE_ASSIGN_OR_RETURN(Schedule s, tx.GetSchedule(id));
        // An active one starts from now; a paused one as its policy says.
        const bool was_active = s.is_active;
        s.is_active = true;
        REDRIVE_RETURN_IF_ERROR(was_active ? Arm(s, ctx) : Resume(s, ctx));
        s.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.UpdateSchedule(s));
        return s;
      },
      std::move(done));
}

void Engine::TriggerSchedule(std::string id, Callback<ScheduleRun> done) {
  impl_->Write<ScheduleRun>(
      [id = std::move(id)](WriteTx& tx, TxContext& ctx) -> Result<ScheduleRun> {
        REDRIVE_ASSIGN_OR_RETURN(Schedule s, tx.GetSchedule(id));
        const std::optional<Instant> last_run_at = s.last_run_at;
        REDRIVE_ASSIGN_OR_RETURN(ScheduleRun run,
                                 schedule_ops::Fire(tx, ctx, s, ctx.now, ScheduleRunKind::kManual));
        // last_run_at stays the last cron time; a manual run is in the history.
        s.last_run_at = last_run_at;
        s.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.UpdateSchedule(s));
        return run;
      },
      std::move(done));
}

void Engine::ScheduleHistory(std::string id, int limit, int offset,
                             Callback<std::vector<ScheduleHistoryEntry>> done) {
  impl_->Read<std::vector<ScheduleHistoryEntry>>(
      [id = std::move(id), limit, offset](ReadTx& tx) -> Result<std::vector<ScheduleHistoryEntry>> {
        REDRIVE_RETURN_IF_ERROR(tx.GetSchedule(id).status());
        REDRIVE_ASSIGN_OR_RETURN(std::vector<ScheduleRun> runs,
                                 tx.ListScheduleRuns(id, limit, offset));
        std::vector<std::string> job_ids;
        for (const ScheduleRun& r : runs) {
          if (r.job_id) job_ids.push_back(*r.job_id);
        }
        REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> jobs, tx.GetJobs(job_ids));
        std::map<std::string, JobStatus> status_of;
        for (const Job& j : jobs) status_of.emplace(j.id, j.status);
        std::vector<ScheduleHistoryEntry> out;
        out.reserve(runs.size());
        for (ScheduleRun& r : runs) {
          ScheduleHistoryEntry e{.run = std::move(r)};
          if (e.run.job_id) {
            if (auto it = status_of.find(*e.run.job_id); it != status_of.end()) {
              e.job_status = it->second;
            }
          }
          out.push_back(std::move(e));
        }
        return out;
      },
      std::move(done));
}

}  // namespace redrive::engine
