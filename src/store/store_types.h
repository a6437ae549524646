// The values the store's calls take and return beyond core's own: the
// filters and selections of the listing, dead-letter and bulk calls, and
// what a few calls give back (ClaimReads, InsertOutcome, ...). The interface
// itself and its contracts are store.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/api_key.h"
#include "core/audit.h"
#include "core/autoredrive.h"
#include "core/clock.h"
#include "core/job.h"
#include "core/job_cursor.h"
#include "core/new_job.h"
#include "core/operation.h"
#include "core/queue.h"
#include "core/refresh_token.h"
#include "core/schedule.h"
#include "core/status.h"
#include "core/throughput.h"
#include "core/transition.h"
#include "core/webhook.h"
#include "core/workflow.h"

namespace redrive::store {

// Filters for ListJobs, ListDeadLetters and SummarizeDeadLetters (each says
// which fields it ignores). Unset fields do not filter.
struct JobFilter {
  std::optional<std::string> queue_name;
  std::optional<JobStatus> status;
  // "key=value" matches a tag exactly; "key" matches jobs having the tag.
  std::optional<std::string> tag;
  std::optional<DeadReason> dead_reason;
  // Jobs whose last_error starts with this text (exact, case-sensitive).
  std::optional<std::string> error_prefix;
  // Jobs whose error_fingerprint is this one (core/error_fingerprint.h).
  std::optional<std::string> fingerprint;
  int limit = 50;
  int offset = 0;
};

// Selection of dead-lettered jobs for redrive/purge.
struct DeadLetterSelection {
  std::vector<std::string> job_ids;  // when non-empty: exactly these (if dead)
  std::optional<std::string> queue_name;
  std::optional<DeadReason> dead_reason;
  std::optional<std::string> tag;
  std::optional<std::string> error_prefix;  // last_error starts with it (exact)
  std::optional<std::string> fingerprint;   // error_fingerprint equals it
  std::optional<Instant> dead_before;       // deadlettered_at < dead_before
  // Jobs auto-redriven fewer times than this (job_auto_revivals; auto-redrive's ceiling).
  std::optional<int> auto_revivals_below;
  int limit = 100;
};

// What a bulk operation (core/operation.h) selects: the DLQ selector's
// fields (`match`, as SelectDeadLetters reads them; its limit is the batch
// size) over jobs in any of `statuses`, in creation order after the cursor
// (core/job_cursor.h: created_at, then the store's tie-breaker).
// SelectJobsAfter reads each status apart, an index seek from the cursor
// each, and merges: a batch never sorts every job the selection matches.
struct JobSelection {
  DeadLetterSelection match;
  std::vector<JobStatus> statuses;  // REQUIRES: non-empty
  // Only jobs past it: a SelectedJobs::next of the same store. A cursor
  // without a seq on SQLite (written before its schema version 25) walks
  // ties by id, as it was written for.
  std::optional<JobCursor> after;
};

// One batch of SelectJobsAfter: its jobs in the walk's order, and the cursor
// just past the last of them (the next batch's `after`); unset when none.
struct SelectedJobs {
  std::vector<Job> jobs;
  std::optional<JobCursor> next;
};

// A bulk operation as stored: its record and what it selects (its
// `selection`'s limit is unused; the statuses are operation.statuses).
struct OperationRecord {
  Operation operation;
  DeadLetterSelection selection;
};

// An auto-redrive policy (core/autoredrive.h) and its live state, one row
// per queue. The operator writes the policy, the `autoredrive` duty the
// state: each through its own narrow update, so neither clobbers the other.
struct AutoredriveRecord {
  AutoredrivePolicy policy;
  AutoredriveState state;
};

// Listing a webhook's deliveries, newest first. Unset fields do not filter.
struct DeliveryFilter {
  std::string webhook_id;
  std::optional<DeliveryStatus> status;
  int limit = 50;
  int offset = 0;
};

// Listing schedules, oldest created first. Unset fields do not filter.
struct ScheduleFilter {
  std::optional<bool> is_active;
  std::optional<std::string> queue_name;
  int limit = 50;
  int offset = 0;
};

// Listing workflows, newest created first (ties by id). Unset fields do not
// filter; `status` filters on the status derived from the jobs
// (DeriveWorkflowStatus, computed by the store in its query).
struct WorkflowFilter {
  std::optional<WorkflowStatus> status;
  int limit = 50;
  int offset = 0;
};

// What a job waits for: its mode and the status of each of its dependencies
// (a dependency removed by retention is no longer one).
struct DependencyState {
  DependencyMode mode = DependencyMode::kAll;
  std::vector<JobStatus> statuses;
};

// A blocked job that waits for a given job (SelectBlockedDependents): its
// mode, and whether every one of its dependencies is met (completed, as
// MarkDependencyMet records).
struct BlockedDependent {
  Job job;
  DependencyMode mode = DependencyMode::kAll;
  bool all_met = false;
};

// A dead-lettered or quarantined job stored before error fingerprints
// existed (SelectUnfingerprinted), and the fingerprint the engine computed
// for its last_error (SetErrorFingerprints). Stores never compute one.
struct FingerprintBackfill {
  std::string job_id;
  std::string last_error;
  std::string fingerprint;  // unset (empty) as selected
};

// Outcome of an insert that may hit an existing idempotency key.
struct InsertOutcome {
  std::string id;
  bool created = true;
};

// What a claim reads before it decides (WriteTx::ReadForClaim).
struct ClaimReads {
  std::optional<QueueConfig> queue;  // GetQueue
  std::vector<WorkerInfo> workers;   // GetWorker of each worker id, those found
  std::vector<Job> due;              // SelectDueScheduled(queue, now, limit)
  std::vector<Job> claimable;        // SelectClaimable(queue, now, limit)
};

}  // namespace redrive::store
