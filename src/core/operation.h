// A bulk operation: one operator action (retry, purge, cancel, release, move) over
// every job a selector matches, however many, run in the background in
// bounded batches (engine/services/operation_runner.h) and kept in the store
// (the `operations` table), so it survives a restart and resumes where it
// stopped. Plain data; JSON in wire/operation_json.h.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/job.h"
#include "core/retry_budget.h"

namespace redrive {

enum class OperationAction {
  kRetry,    // dead jobs → pending (event::Retry, with a budget and a target queue)
  kPurge,    // dead jobs → deleted
  kCancel,   // pending, scheduled or processing jobs → cancelled (event::Cancel)
  kRelease,  // quarantined jobs → pending (event::ReleaseQuarantine)
  kMove,     // pending, scheduled, dead or quarantined jobs → target_queue, same status
             // (event::Move)
};

// queued → running → completed | cancelled | failed.
enum class OperationState { kQueued, kRunning, kCompleted, kCancelled, kFailed };

const char* OperationActionName(OperationAction a);  // "retry", ...
std::optional<OperationAction> ParseOperationAction(std::string_view s);
std::string OperationActionNames();                // "retry, purge, cancel, release, move"
const char* OperationStateName(OperationState s);  // "queued", ...
std::optional<OperationState> ParseOperationState(std::string_view s);
// completed, cancelled or failed: it changes no job any more.
bool IsFinished(OperationState s);

// The statuses an action may select; a selector's `status` narrows them to
// one of these. Retry and purge: deadletter; cancel: pending, scheduled,
// processing; release: quarantined; move: pending, scheduled, deadletter,
// quarantined (never processing: its holder would finish it in the wrong
// queue; never blocked: it waits for its workflow).
std::vector<JobStatus> ActionStatuses(OperationAction a);

// "pending,scheduled": how stores keep Operation::statuses; Parse skips
// unknown names.
std::string StatusListText(const std::vector<JobStatus>& statuses);
std::vector<JobStatus> ParseStatusList(std::string_view text);

// How long a finished operation is kept before retention deletes it
// (`redrive serve --operation-retention`).
inline constexpr std::chrono::hours kDefaultOperationRetention{24 * 7};

// At most this many operations are unfinished (queued or running) at once.
inline constexpr size_t kMaxUnfinishedOperations = 10;
// At most this many jobs per batch (one transaction) of an operation.
inline constexpr int kMaxOperationBatch = 500;
// A dry run's sample.
inline constexpr int kOperationSampleSize = 20;
inline constexpr size_t kMaxOperationReasonBytes = 500;

struct Operation {
  std::string id;  // UUIDv7
  OperationAction action = OperationAction::kRetry;
  OperationState state = OperationState::kQueued;
  // The selector as the client sent it, canonical JSON (shown back as is).
  std::string selector_json = "{}";
  std::vector<JobStatus> statuses;          // what it selects (ActionStatuses, narrowed)
  std::optional<double> rate_per_second;    // jobs per second; unset: as fast as batches go
  std::optional<RetryBudget> budget;        // retry and release
  std::optional<std::string> target_queue;  // retry and release (optional), move (required)
  std::optional<std::string> reason;
  std::string created_by;  // the caller, as the audit log names it
  long long matched = 0;   // jobs matched when it started
  long long done = 0;      // jobs changed
  long long failed = 0;    // jobs it could not change (another request changed them first)
  // The last job handled so far (core/job_cursor.h, FormatJobCursor's
  // text): jobs are handled in (created_at, id) order, and a batch moves the
  // cursor in its own transaction, so a restart resumes after it and never
  // handles a job twice.
  std::optional<std::string> cursor;
  std::optional<std::string> error;  // failed: why
  Instant created_at{};
  Instant updated_at{};
  std::optional<Instant> started_at, finished_at;
  // Its next batch is due then (the rate's pace); unset: at once.
  std::optional<Instant> next_batch_at;
};

// Jobs still to handle (never negative).
long long OperationRemaining(const Operation& op);
// When it should finish, from its rate or (without one) the speed measured
// since it started; unset when finished or not yet measurable.
std::optional<Instant> EstimatedFinish(const Operation& op, Instant now);

}  // namespace redrive
