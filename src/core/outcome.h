// What a write did to a job, as one closed vocabulary: Apply() (transition.h)
// names the Outcome of every change, enqueue names kCreated, and ONE table
// says what each outcome means outside the job row — the history entry it
// writes, the metric events it counts, the webhook events it emits, in that
// order. Nothing downstream re-derives these facts from strings or statuses.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace redrive {

enum class Outcome {
  kCreated,                  // enqueue inserted the job (pending or scheduled)
  kPromoted,                 // scheduled -> pending, now due
  kLeaseExtended,            // heartbeat
  kPriorityChanged,          // set priority
  kClaimed,                  // pending -> processing under a new lease
  kCompleted,                // processing -> completed
  kFailedRetryScheduled,     // a fail call; a retry is scheduled
  kLeaseLostRetryScheduled,  // the lease expired (or the attempt timed out); retry scheduled
  kFailedDeadlettered,       // a fail call with no retry left (or no_retry, or past deadline)
  kLeaseLostDeadlettered,    // the lease expired (or timed out) with no retry left
  kDeadlineDeadlettered,     // pending|scheduled past expires_at: never ran, failed nothing
  kRedriven,                 // deadletter -> pending|scheduled (job or DLQ retry)
  kRetriedFromCancelled,     // cancelled -> pending|scheduled (job retry)
  kCancelled,                // pending|scheduled|processing -> cancelled
  kReleased,                 // processing -> pending: the holder deregistered
  kPayloadUpdated,           // a dead-lettered or quarantined job's payload replaced
  kLeaseLostQuarantined,     // the lease expired and crash_count reached crash_limit
  kReleasedFromQuarantine,   // quarantined -> pending (operator release)
  kSnoozed,                  // processing -> scheduled|pending: "not now", no retry spent
  kUnblocked,                // blocked -> pending|scheduled: its dependencies are met
  kBlocked,                  // pending|scheduled -> blocked: dependencies added, not met
  kMoved,                    // an operator moved a waiting or dead job to another queue
};
inline constexpr size_t kOutcomeCount = 22;
static_assert(static_cast<size_t>(Outcome::kMoved) + 1 == kOutcomeCount,
              "kOutcomeCount counts every Outcome");

// A metric event an outcome counts: a TxEffects::job_events event name of the
// engine ("claimed", "failed", ...). `by_dead_reason`: labelled with the
// job's dead_reason.
struct CountedEvent {
  const char* event = nullptr;
  bool by_dead_reason = false;
};

// A webhook event an outcome emits (an IsWebhookEvent name) and the details
// its data carries besides the job summary.
struct EmittedWebhook {
  const char* event = nullptr;
  std::optional<bool> will_retry;  // job.failed: is another attempt scheduled
  bool retry_source = false;       // job.retried: who asked ("job_retry", "dlq_retry")
};

// The table's row for one outcome. Unused slots of `counts` and `webhooks`
// are left empty (event == nullptr) and always come last.
struct OutcomeInfo {
  Outcome outcome;
  const char* name;          // "claimed", ... (logs and tests)
  const char* history_type;  // the history entry's event_type; nullptr: none written
  std::array<CountedEvent, 3> counts;
  std::array<EmittedWebhook, 2> webhooks;  // in the order they are emitted
};

// The row of `o`. Total: every Outcome has one.
const OutcomeInfo& Describe(Outcome o);
// Every row, in Outcome order (tests, docs).
const std::array<OutcomeInfo, kOutcomeCount>& OutcomeTable();

// What a request did to a queue, for the webhooks (queue events write no
// history and count no job metric).
enum class QueueOutcome { kPaused, kResumed };
// "queue.paused", "queue.resumed".
std::string_view QueueWebhookEventName(QueueOutcome o);

// What a write did to a workflow (core/workflow.h), for the webhooks: its
// derived status became completed or failed.
enum class WorkflowOutcome { kCompleted, kFailed };
// "workflow.completed", "workflow.failed".
std::string_view WorkflowWebhookEventName(WorkflowOutcome o);

// What a request did to a worker's registration, for the webhooks.
enum class WorkerOutcome { kRegistered, kDeregistered };
// "worker.registered", "worker.deregistered".
std::string_view WorkerWebhookEventName(WorkerOutcome o);

}  // namespace redrive
