#include "core/transition.h"

#include <algorithm>
#include <string>

#include "core/error_fingerprint.h"
#include "core/ids.h"
#include "core/json_text.h"
#include "core/limits.h"
#include "core/retry_policy.h"
#include "core/time_format.h"
#include "core/utf8.h"

namespace redrive {

namespace {

using std::chrono::seconds;

Status WrongStatus(const Job& job, const char* what) {
  return Status::Conflict(std::string("cannot ") + what + " a job in status " +
                          JobStatusName(job.status));
}

// The caller must hold the job's current, unexpired lease. A finished job
// answers CONFLICT (e.g. a second complete); a job that is no longer held
// (cancelled, reaped, re-queued) answers LEASE_EXPIRED. Without a lease_id
// the worker_id alone must name the holder (event::Heartbeat).
Status CheckLease(const Job& job, const std::string& worker_id,
                  const std::optional<std::string>& lease_id, Instant now) {
  if (job.status == JobStatus::kCompleted) return Status::Conflict("job is already completed");
  if (job.status != JobStatus::kProcessing) {
    return Status::LeaseExpired(std::string("job is no longer held (status ") +
                                JobStatusName(job.status) + ")");
  }
  if (lease_id && job.lease_id != *lease_id)
    return Status::LeaseExpired("lease_id is not the job's current lease");
  if (job.assigned_worker_id != worker_id) {
    return Status::LeaseExpired("the lease is held by another worker");
  }
  if (!job.lease_expires_at || *job.lease_expires_at <= now) {
    return Status::LeaseExpired("lease expired");
  }
  return Status::Ok();
}

void ClearLease(Job& j) {
  j.assigned_worker_id.reset();
  j.lease_id.reset();
  j.lease_expires_at.reset();
}

// The latest instant a lease of the current attempt may reach.
Instant AttemptCap(const Job& j) { return AddClamped(*j.started_at, seconds(j.timeout_seconds)); }

class Applier {
 public:
  Applier(const Job& job, Instant now, Random& random) : job_(job), now_(now), random_(random) {
    change_.before = job;
    change_.after = job;
    change_.after.updated_at = now;
  }

  Result<Change> operator()(const event::Claim& e) {
    if (job_.status != JobStatus::kPending) return WrongStatus(job_, "claim");
    if (job_.expires_at && *job_.expires_at <= now_) {
      return Status::Conflict("job is past its expires_at");
    }
    Job& j = change_.after;
    j.status = JobStatus::kProcessing;
    j.started_at = now_;
    j.attempts += 1;
    j.assigned_worker_id = e.worker_id;
    j.lease_id = e.lease_id;
    j.lease_expires_at = std::min(AddClamped(now_, e.lease_duration), AttemptCap(j));
    History(Outcome::kClaimed, e.worker_id,
            JsonObjectText().Str("lease_id", e.lease_id).Int("attempt", j.attempts).Build());
    return std::move(change_);
  }

  Result<Change> operator()(const event::Promote&) {
    if (job_.status != JobStatus::kScheduled) return WrongStatus(job_, "promote");
    if (job_.scheduled_at > now_) return Status::Conflict("job is not due yet");
    // Not a history event: the entry that scheduled it already says when it
    // would run.
    change_.after.status = JobStatus::kPending;
    change_.outcome = Outcome::kPromoted;
    return std::move(change_);
  }

  Result<Change> operator()(const event::Heartbeat& e) {
    REDRIVE_RETURN_IF_ERROR(CheckLease(job_, e.worker_id, e.lease_id, now_));
    Job& j = change_.after;
    // A heartbeat cannot extend the attempt past its timeout.
    j.lease_expires_at = std::min(AddClamped(now_, e.lease_duration), AttemptCap(j));
    change_.outcome = Outcome::kLeaseExtended;
    return std::move(change_);
  }

  Result<Change> operator()(const event::Complete& e) {
    REDRIVE_RETURN_IF_ERROR(CheckLease(job_, e.worker_id, e.lease_id, now_));
    Job& j = change_.after;
    j.status = JobStatus::kCompleted;
    j.completed_at = now_;
    j.result = e.result_json;
    ClearLease(j);
    History(Outcome::kCompleted, e.worker_id, "{}");
    return std::move(change_);
  }

  Result<Change> operator()(const event::Fail& e) {
    REDRIVE_RETURN_IF_ERROR(CheckLease(job_, e.worker_id, e.lease_id, now_));
    std::string error = Utf8Prefix(e.error, kMaxErrorLength);
    const auto d = DecideFailure(job_, now_, e.no_retry, e.retry_after, false, random_);
    ApplyFailure(d, error, e.worker_id, Outcome::kFailedRetryScheduled,
                 Outcome::kFailedDeadlettered, e.details_json);
    return std::move(change_);
  }

  Result<Change> operator()(const event::LeaseExpiry&) {
    if (job_.status != JobStatus::kProcessing) return WrongStatus(job_, "expire the lease of");
    if (*job_.lease_expires_at > now_) return Status::Conflict("lease has not expired");
    const bool timed_out = *job_.lease_expires_at >= AttemptCap(job_);
    const std::string error =
        timed_out ? "attempt timed out after " + std::to_string(job_.timeout_seconds) + "s"
                  : "lease expired";
    change_.after.lease_expiries += 1;
    change_.after.crash_count += 1;
    if (ReachedCrashLimit(change_.after)) {
      Quarantine(error);
      return std::move(change_);
    }
    const auto d = DecideFailure(job_, now_, false, std::nullopt, true, random_);
    ApplyFailure(d, error, job_.assigned_worker_id, Outcome::kLeaseLostRetryScheduled,
                 Outcome::kLeaseLostDeadlettered);
    return std::move(change_);
  }

  Result<Change> operator()(const event::Deadline&) {
    if (job_.status != JobStatus::kPending && job_.status != JobStatus::kScheduled) {
      return WrongStatus(job_, "expire");
    }
    if (!job_.expires_at || *job_.expires_at > now_)
      return Status::Conflict("deadline not reached");
    FailureDecision d;
    d.dead_reason = DeadReason::kExpired;
    // Never retried (d.will_retry is false): the retry outcome is not used.
    ApplyFailure(d, "deadline passed before the job could run", std::nullopt,
                 Outcome::kDeadlineDeadlettered, Outcome::kDeadlineDeadlettered);
    return std::move(change_);
  }

  Result<Change> operator()(const event::Cancel&) {
    if (IsTerminal(job_.status)) return WrongStatus(job_, "cancel");
    Job& j = change_.after;
    j.status = JobStatus::kCancelled;
    j.completed_at = now_;
    ClearLease(j);
    History(Outcome::kCancelled, std::nullopt, "{}");
    return std::move(change_);
  }

  Result<Change> operator()(const event::Retry& e) {
    if (job_.status != JobStatus::kDeadletter && job_.status != JobStatus::kCancelled) {
      return WrongStatus(job_, "retry");
    }
    if (e.new_expires_at && *e.new_expires_at <= now_) {
      return Status::Validation("expires_at", "expires_at must be in the future");
    }
    Job& j = change_.after;
    const Instant due = std::max(now_, e.run_at.value_or(now_));
    if (e.new_expires_at && *e.new_expires_at <= due) {
      return Status::Validation("expires_at", "expires_at must be after the time the job will run");
    }
    REDRIVE_RETURN_IF_ERROR(CheckTargetQueue(e.target_queue));
    j.status = !e.dependencies_met ? JobStatus::kBlocked
               : due > now_        ? JobStatus::kScheduled
                                   : JobStatus::kPending;
    j.scheduled_at = due;
    ApplyRetryBudget(e.budget, j);
    j.last_error.reset();
    j.error_fingerprint.reset();
    j.dead_reason = DeadReason::kNone;
    j.deadlettered_at.reset();
    j.completed_at.reset();
    JsonObjectText details;
    details.Str("source", e.source).Str("budget", RetryBudgetText(e.budget));
    MoveToQueue(e.target_queue, details);
    if (e.new_expires_at) {
      j.expires_at = e.new_expires_at;
    } else if (j.expires_at && *j.expires_at <= due) {
      // The operator asked for this job to run: a passed deadline would send
      // it straight back to the DLQ, so it is dropped (and recorded).
      j.expires_at.reset();
      details.Raw("expires_at_cleared", "true");
    }
    if (due > now_) details.Str("run_at", FormatTime(due));
    if (!e.dependencies_met) details.Raw("blocked", "true");
    // Only a redrive out of the DLQ counts as one (metrics); both are "retried".
    const Outcome outcome =
        job_.status == JobStatus::kDeadletter ? Outcome::kRedriven : Outcome::kRetriedFromCancelled;
    History(outcome, std::nullopt, details.Build());
    return std::move(change_);
  }

  Result<Change> operator()(const event::UpdatePayload& e) {
    if (job_.status != JobStatus::kDeadletter && job_.status != JobStatus::kQuarantined) {
      return WrongStatus(job_, "update the payload of");
    }
    change_.after.payload = e.payload_json;
    History(Outcome::kPayloadUpdated, std::nullopt, "{}");
    return std::move(change_);
  }

  Result<Change> operator()(const event::Release& e) {
    if (job_.status != JobStatus::kProcessing) return WrongStatus(job_, "release");
    if (job_.assigned_worker_id != e.worker_id) return Status::Conflict("held by another worker");
    Job& j = change_.after;
    j.status = JobStatus::kPending;
    ClearLease(j);
    History(Outcome::kReleased, e.worker_id, "{}");
    return std::move(change_);
  }

  Result<Change> operator()(const event::SetPriority& e) {
    if (job_.status == JobStatus::kCompleted || job_.status == JobStatus::kCancelled) {
      return WrongStatus(job_, "change the priority of");
    }
    change_.after.priority = e.priority;
    change_.outcome = Outcome::kPriorityChanged;
    return std::move(change_);
  }

  Result<Change> operator()(const event::ReleaseQuarantine& e) {
    if (job_.status != JobStatus::kQuarantined) return WrongStatus(job_, "release from quarantine");
    REDRIVE_RETURN_IF_ERROR(CheckTargetQueue(e.target_queue));
    Job& j = change_.after;
    j.status = JobStatus::kPending;
    j.scheduled_at = now_;
    j.crash_count = 0;
    ApplyRetryBudget(e.budget, j);
    j.last_error.reset();
    j.error_fingerprint.reset();
    j.completed_at.reset();
    JsonObjectText details;
    details.Int("crash_count", job_.crash_count)
        .Str("budget", RetryBudgetText(e.budget))
        .Int("retry_count", j.retry_count)
        .Int("max_retries", j.max_retries);
    MoveToQueue(e.target_queue, details);
    if (j.expires_at && *j.expires_at <= now_) {
      // As a redrive does: a passed deadline would dead-letter it at once.
      j.expires_at.reset();
      details.Raw("expires_at_cleared", "true");
    }
    History(Outcome::kReleasedFromQuarantine, std::nullopt, details.Build());
    return std::move(change_);
  }

  Result<Change> operator()(const event::Unblock& e) {
    if (job_.status != JobStatus::kBlocked) return WrongStatus(job_, "unblock");
    Job& j = change_.after;
    j.status = job_.scheduled_at > now_ ? JobStatus::kScheduled : JobStatus::kPending;
    if (j.status == JobStatus::kPending) j.scheduled_at = now_;
    History(Outcome::kUnblocked, std::nullopt, JsonObjectText().Str("cause", e.cause).Build());
    return std::move(change_);
  }

  Result<Change> operator()(const event::Block&) {
    if (job_.status != JobStatus::kPending && job_.status != JobStatus::kScheduled) {
      return WrongStatus(job_, "block");
    }
    change_.after.status = JobStatus::kBlocked;
    History(Outcome::kBlocked, std::nullopt, "{}");
    return std::move(change_);
  }

  Result<Change> operator()(const event::Move& e) {
    switch (job_.status) {
      case JobStatus::kPending:
      case JobStatus::kScheduled:
      case JobStatus::kDeadletter:
      case JobStatus::kQuarantined:
        break;
      default:
        return WrongStatus(job_, "move");
    }
    if (!IsValidQueueName(e.target_queue)) {
      return Status::Validation("target_queue", "target_queue is not a valid queue name");
    }
    if (e.target_queue == job_.queue_name) {
      return Status::Conflict("job " + job_.id + " is already in queue " + job_.queue_name);
    }
    change_.after.queue_name = e.target_queue;
    JsonObjectText details;
    details.Str("from_queue", job_.queue_name).Str("to_queue", e.target_queue).Str("by", e.by);
    if (e.operation_id) details.Str("operation_id", *e.operation_id);
    History(Outcome::kMoved, std::nullopt, details.Build());
    return std::move(change_);
  }

  Result<Change> operator()(const event::Snooze& e) {
    REDRIVE_RETURN_IF_ERROR(CheckLease(job_, e.worker_id, e.lease_id, now_));
    if (job_.snooze_count >= job_.max_snoozes) {
      return Status::Conflict("job has been snoozed " + std::to_string(job_.snooze_count) +
                              " times, its max_snoozes; fail or complete it instead");
    }
    Job& j = change_.after;
    // The API bounds the delay; a caller that does not is capped, not overflowed.
    const auto delay = std::clamp(e.delay, std::chrono::milliseconds(0),
                                  std::chrono::milliseconds(kMaxSnoozeDelayMs));
    const Instant due = AddClamped(now_, delay);
    ClearLease(j);
    j.snooze_count += 1;
    j.scheduled_at = due;
    j.status = due > now_ ? JobStatus::kScheduled : JobStatus::kPending;
    History(Outcome::kSnoozed, e.worker_id,
            JsonObjectText()
                .Int("delay_ms", e.delay.count())
                .Str("next_run", FormatTime(due))
                .Int("snooze_count", j.snooze_count)
                .Build());
    return std::move(change_);
  }

 private:
  // A redrive's target queue must be a queue name (the API checks it first;
  // this keeps every caller honest).
  static Status CheckTargetQueue(const std::optional<std::string>& target) {
    if (target && !IsValidQueueName(*target)) {
      return Status::Validation("target_queue", "target_queue is not a valid queue name");
    }
    return Status::Ok();
  }

  // A redrive into another queue: the job moves, and its history says from
  // where to where. The same queue is no move.
  void MoveToQueue(const std::optional<std::string>& target, JsonObjectText& details) {
    if (!target || *target == job_.queue_name) return;
    change_.after.queue_name = *target;
    details.Str("from_queue", job_.queue_name).Str("to_queue", *target);
  }

  // Records `outcome` and its history entry.
  void History(Outcome outcome, std::optional<std::string> worker, std::string details) {
    change_.outcome = outcome;
    change_.history =
        NewHistoryEntry(job_.id, outcome, std::move(worker), std::move(details), now_, random_);
  }

  static bool ReachedCrashLimit(const Job& j) {
    return j.crash_limit > 0 && j.crash_count >= j.crash_limit;
  }

  // A crash too many: the job stops here, apart from the DLQ, whatever its
  // retries left. retry_count is not charged, as for a dead-letter: no retry
  // follows.
  void Quarantine(const std::string& error) {
    Job& j = change_.after;
    std::optional<std::string> worker = j.assigned_worker_id;
    ClearLease(j);
    j.status = JobStatus::kQuarantined;
    j.last_error = error;
    j.error_fingerprint = ErrorFingerprint(error);
    j.completed_at = now_;
    History(Outcome::kLeaseLostQuarantined, std::move(worker),
            JsonObjectText()
                .Str("error", error)
                .Str("reason", "crash_limit")
                .Int("crash_count", j.crash_count)
                .Int("crash_limit", j.crash_limit)
                .Int("total_retries", j.retry_count)
                .Build());
  }

  // A failed attempt: retry later (`retried`) or dead-letter (`dead`).
  // `attempt` is the worker's details of the attempt (event::Fail).
  void ApplyFailure(const FailureDecision& d, const std::string& error,
                    std::optional<std::string> worker, Outcome retried, Outcome dead,
                    const std::optional<std::string>& attempt = std::nullopt) {
    Job& j = change_.after;
    ClearLease(j);
    j.last_error = error;
    if (d.will_retry) {
      j.retry_count += 1;
      j.scheduled_at = d.next_run;
      j.status = d.next_run <= now_ ? JobStatus::kPending : JobStatus::kScheduled;
      JsonObjectText details;
      details.Str("error", error)
          .Int("retry_count", j.retry_count)
          .Str("next_run", FormatTime(d.next_run));
      if (attempt) details.Raw("attempt", *attempt);
      History(retried, std::move(worker), details.Build());
      return;
    }
    j.status = JobStatus::kDeadletter;
    j.error_fingerprint = ErrorFingerprint(error);
    j.dead_reason = d.dead_reason;
    j.deadlettered_at = now_;
    j.completed_at = now_;
    JsonObjectText details;
    details.Str("error", error)
        .Str("reason", DeadReasonName(d.dead_reason))
        .Int("total_retries", j.retry_count);
    if (attempt) details.Raw("attempt", *attempt);
    History(dead, std::move(worker), details.Build());
  }

  const Job& job_;
  Instant now_;
  Random& random_;
  Change change_;
};

}  // namespace

const char* EventName(const Event& e) {
  static constexpr const char* kNames[] = {"claim",
                                           "promote",
                                           "heartbeat",
                                           "complete",
                                           "fail",
                                           "lease_expiry",
                                           "deadline",
                                           "cancel",
                                           "retry",
                                           "update_payload",
                                           "release",
                                           "set_priority",
                                           "release_quarantine",
                                           "snooze",
                                           "unblock",
                                           "block",
                                           "move"};
  static_assert(std::size(kNames) == std::variant_size_v<Event>);
  return kNames[e.index()];
}

Result<Change> Apply(const Job& job, const Event& event, Instant now, Random& random) {
  return std::visit(Applier(job, now, random), event);
}

Status GuardFailed(const Change& change) {
  const Job& before = change.before;
  return Status::Conflict("job " + before.id + " is no longer " + JobStatusName(before.status) +
                          (before.lease_id ? " under that lease" : ""));
}

HistoryEntry NewHistoryEntry(const std::string& job_id, Outcome outcome,
                             std::optional<std::string> worker_id, std::string details_json,
                             Instant now, Random& random) {
  HistoryEntry h;
  h.id = NewUuidV7(now, random);
  h.job_id = job_id;
  h.event_type = Describe(outcome).history_type;
  h.worker_id = std::move(worker_id);
  h.details_json = std::move(details_json);
  h.created_at = now;
  return h;
}

HistoryEntry CreatedHistory(const Job& job, Instant now, Random& random) {
  JsonObjectText details;
  details.Str("queue_name", job.queue_name);
  if (job.status == JobStatus::kScheduled) {
    details.Str("scheduled_at", FormatTime(job.scheduled_at));
  }
  return NewHistoryEntry(job.id, Outcome::kCreated, std::nullopt, details.Build(), now, random);
}

}  // namespace redrive
