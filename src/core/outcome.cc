#include "core/outcome.h"

namespace redrive {

namespace {

using O = Outcome;

constexpr CountedEvent Count(const char* event) { return {event, false}; }
constexpr CountedEvent kDeadlettered{"deadlettered", true};

constexpr EmittedWebhook Emit(const char* event) { return {event, std::nullopt, false}; }
constexpr EmittedWebhook kFailedWillRetry{"job.failed", true, false};
constexpr EmittedWebhook kFailedForGood{"job.failed", false, false};

// Row i describes Outcome i (checked below and in outcome_test.cc). A failed attempt
// counts "failed" whether or not it is retried; losing the lease counts
// "lease_expired" on top; a deadline dead-letter failed no attempt, so it
// counts and emits no failure. Only a redrive from the DLQ counts "redriven".
// A quarantine is a failed attempt (a lost lease) with no retry to come, like
// a dead-letter, but counted and announced apart from the DLQ. A snooze
// fails nothing.
constexpr std::array<OutcomeInfo, kOutcomeCount> kTable = {{
    {O::kCreated, "created", "created", {Count("enqueued")}, {Emit("job.created")}},
    {O::kPromoted, "promoted", nullptr, {}, {}},
    {O::kLeaseExtended, "lease_extended", nullptr, {}, {}},
    {O::kPriorityChanged, "priority_changed", nullptr, {}, {}},
    {O::kClaimed, "claimed", "processing", {Count("claimed")}, {Emit("job.started")}},
    {O::kCompleted, "completed", "completed", {Count("completed")}, {Emit("job.completed")}},
    {O::kFailedRetryScheduled,
     "failed_retry_scheduled",
     "retry_scheduled",
     {Count("failed"), Count("retry_scheduled")},
     {kFailedWillRetry}},
    {O::kLeaseLostRetryScheduled,
     "lease_lost_retry_scheduled",
     "lease_expired",
     {Count("failed"), Count("retry_scheduled"), Count("lease_expired")},
     {kFailedWillRetry}},
    {O::kFailedDeadlettered,
     "failed_deadlettered",
     "deadlettered",
     {Count("failed"), kDeadlettered},
     {kFailedForGood, Emit("job.deadlettered")}},
    {O::kLeaseLostDeadlettered,
     "lease_lost_deadlettered",
     "deadlettered",
     {Count("failed"), kDeadlettered, Count("lease_expired")},
     {kFailedForGood, Emit("job.deadlettered")}},
    {O::kDeadlineDeadlettered,
     "deadline_deadlettered",
     "deadlettered",
     {kDeadlettered},
     {Emit("job.deadlettered")}},
    {O::kRedriven,
     "redriven",
     "retried",
     {Count("redriven")},
     {{"job.retried", std::nullopt, true}}},
    {O::kRetriedFromCancelled,
     "retried_from_cancelled",
     "retried",
     {},
     {{"job.retried", std::nullopt, true}}},
    {O::kCancelled, "cancelled", "cancelled", {}, {Emit("job.cancelled")}},
    {O::kReleased, "released", "released", {}, {}},
    {O::kPayloadUpdated, "payload_updated", "payload_updated", {}, {}},
    {O::kLeaseLostQuarantined,
     "lease_lost_quarantined",
     "quarantined",
     {Count("failed"), Count("lease_expired"), Count("quarantined")},
     {kFailedForGood, Emit("job.quarantined")}},
    {O::kReleasedFromQuarantine,
     "released_from_quarantine",
     "quarantine_released",
     {Count("quarantine_released")},
     {}},
    {O::kSnoozed, "snoozed", "snoozed", {Count("snoozed")}, {}},
    {O::kUnblocked, "unblocked", "unblocked", {Count("unblocked")}, {}},
    {O::kBlocked, "blocked", "blocked", {Count("blocked")}, {}},
    // A move changes the queue only: no status, so no job webhook.
    {O::kMoved, "moved", "moved", {Count("moved")}, {}},
}};

constexpr bool RowsInOutcomeOrder() {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<size_t>(kTable[i].outcome) != i) return false;
  }
  return true;
}
static_assert(RowsInOutcomeOrder(), "row i of the outcome table must describe Outcome i");

}  // namespace

const OutcomeInfo& Describe(Outcome o) { return kTable[static_cast<size_t>(o)]; }

const std::array<OutcomeInfo, kOutcomeCount>& OutcomeTable() { return kTable; }

std::string_view QueueWebhookEventName(QueueOutcome o) {
  switch (o) {
    case QueueOutcome::kPaused:
      return "queue.paused";
    case QueueOutcome::kResumed:
      return "queue.resumed";
  }
  return "";
}

std::string_view WorkflowWebhookEventName(WorkflowOutcome o) {
  switch (o) {
    case WorkflowOutcome::kCompleted:
      return "workflow.completed";
    case WorkflowOutcome::kFailed:
      return "workflow.failed";
  }
  return "";
}

std::string_view WorkerWebhookEventName(WorkerOutcome o) {
  switch (o) {
    case WorkerOutcome::kRegistered:
      return "worker.registered";
    case WorkerOutcome::kDeregistered:
      return "worker.deregistered";
  }
  return "";
}

}  // namespace redrive
