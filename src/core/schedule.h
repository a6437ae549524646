// Schedules (cron jobs): a cron expression in a time zone that enqueues one
// job into a queue each time it fires, and the history of its runs. Plain
// data and the names of their enums; the cron arithmetic is src/cron/, the
// firing is the engine's schedule service.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/job.h"

namespace redrive {

// What a schedule does with the fire times it missed (the server was down,
// or the schedule's duty lagged).
enum class MissedRunPolicy {
  kSkip,     // fire nothing for them; go on from the next future time
  kRunOnce,  // one job for all of them
  kBackfill  // one job per missed time, at most backfill_limit of the latest
};
const char* MissedRunPolicyName(MissedRunPolicy p);  // "skip", "run_once", "backfill"
std::optional<MissedRunPolicy> ParseMissedRunPolicy(std::string_view s);

// What a schedule does when it fires while its previous job is still
// pending, scheduled or processing.
enum class OverlapPolicy {
  kAllow,          // enqueue anyway
  kSkipIfRunning,  // record a skipped run, enqueue nothing
  kCancelPrevious  // cancel the previous job, then enqueue
};
const char* OverlapPolicyName(OverlapPolicy p);  // "allow", "skip_if_running", "cancel_previous"
std::optional<OverlapPolicy> ParseOverlapPolicy(std::string_view s);

// Why a run happened.
enum class ScheduleRunKind { kScheduled, kManual, kBackfill };
const char* ScheduleRunKindName(ScheduleRunKind k);  // "scheduled", "manual", "backfill"
std::optional<ScheduleRunKind> ParseScheduleRunKind(std::string_view s);

// The most missed times one backfill enqueues, whatever a schedule asks.
inline constexpr int kMaxBackfillLimit = 1000;

struct Schedule {
  std::string id;  // UUIDv7
  std::string name;
  std::optional<std::string> description;
  std::string cron_expression;   // valid for cron::ParseCron
  std::string timezone = "UTC";  // an IANA zone name
  std::string queue_name;
  std::string payload_template = "{}";  // serialized JSON: each job's payload
  int priority = 0;
  int max_retries = 3;
  int timeout_seconds = 300;
  Tags tags;                    // each job's tags (besides the schedule's own tag)
  std::string metadata = "{}";  // serialized JSON object, kept for the client
  bool is_active = true;
  MissedRunPolicy missed_run_policy = MissedRunPolicy::kSkip;
  OverlapPolicy overlap_policy = OverlapPolicy::kAllow;
  int backfill_limit = 10;             // 1..kMaxBackfillLimit
  std::optional<Instant> last_run_at;  // fire time of the latest run
  std::optional<Instant> next_run_at;  // set exactly while active (and it has a next time)
  std::optional<std::string> last_job_id;
  long long run_count = 0;  // runs that enqueued a job
  Instant created_at{};
  Instant updated_at{};

  friend bool operator==(const Schedule&, const Schedule&) = default;
};

// One firing of a schedule: the job it enqueued, or why it enqueued none.
struct ScheduleRun {
  std::string id;  // UUIDv7
  std::string schedule_id;
  Instant fire_time{};  // the cron time it stands for (a manual run: when asked)
  ScheduleRunKind kind = ScheduleRunKind::kScheduled;
  std::optional<std::string> job_id;  // unset when it enqueued nothing
  std::optional<std::string> error;   // why it enqueued nothing (skipped, refused)
  Instant created_at{};

  friend bool operator==(const ScheduleRun&, const ScheduleRun&) = default;
};

// The tag every job a schedule enqueues carries: schedule_id=<id>.
inline constexpr std::string_view kScheduleTag = "schedule_id";

}  // namespace redrive
