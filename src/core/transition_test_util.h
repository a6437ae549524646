// Shared by the transition tests (transition_test.cc: the table over every
// (status, event) pair; transition_events_test.cc: each event with exact
// times): printers, a base instant, fixed jitter, jobs in each status and
// Apply with a FixedRandom. No clock is read and nothing sleeps.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>

#include "core/error_fingerprint.h"
#include "core/ids.h"
#include "core/time_format.h"
#include "core/transition.h"

namespace redrive {

// gtest printers (found by ADL) so that a failed comparison shows fields.
inline void PrintTo(JobStatus s, std::ostream* os) { *os << JobStatusName(s); }
inline void PrintTo(DeadReason r, std::ostream* os) {
  *os << "DeadReason(" << DeadReasonName(r) << ")";
}
inline void PrintTo(ErrorCode c, std::ostream* os) { *os << ErrorCodeName(c); }
inline void PrintTo(Outcome o, std::ostream* os) { *os << "Outcome(" << Describe(o).name << ")"; }

inline std::string Opt(const std::optional<std::string>& s) {
  return s ? "\"" + *s + "\"" : "null";
}
inline std::string Opt(const std::optional<Instant>& t) { return t ? FormatTime(*t) : "null"; }

inline void PrintTo(const Job& j, std::ostream* os) {
  *os << "Job{status=" << JobStatusName(j.status) << " payload=" << j.payload
      << " result=" << Opt(j.result) << " priority=" << j.priority
      << " retry_count=" << j.retry_count << " max_retries=" << j.max_retries
      << " last_error=" << Opt(j.last_error) << " dead_reason=" << DeadReasonName(j.dead_reason)
      << " updated_at=" << FormatTime(j.updated_at)
      << " scheduled_at=" << FormatTime(j.scheduled_at) << " started_at=" << Opt(j.started_at)
      << " completed_at=" << Opt(j.completed_at) << " expires_at=" << Opt(j.expires_at)
      << " deadlettered_at=" << Opt(j.deadlettered_at) << " worker=" << Opt(j.assigned_worker_id)
      << " lease_id=" << Opt(j.lease_id) << " lease_expires_at=" << Opt(j.lease_expires_at)
      << " attempts=" << j.attempts << " lease_expiries=" << j.lease_expiries
      << " crash_count=" << j.crash_count << "/" << j.crash_limit
      << " snooze_count=" << j.snooze_count << "/" << j.max_snoozes << "}";
}

inline void PrintTo(const HistoryEntry& h, std::ostream* os) {
  *os << "History{" << h.event_type << " worker=" << Opt(h.worker_id) << " " << h.details_json
      << " at " << FormatTime(h.created_at) << "}";
}

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using std::chrono::seconds;

static_assert(std::variant_size_v<Event> == 17, "a new event kind needs rows in the table");
inline constexpr size_t kEventKinds = std::variant_size_v<Event>;

// 2026-11-29T12:00:00.000Z: "now" in every test unless stated.
inline const Instant kT0 = std::chrono::time_point_cast<Micros>(
    std::chrono::sys_days{std::chrono::year{2026} / 11 / 29} + std::chrono::hours{12});

// The fixed jitter: with the default 500 ms jitter bound, FixedRandom(250'000)
// draws 250'000 µs (UniformInclusive = value % (bound + 1)).
inline constexpr uint64_t kJitterDraw = 250'000;
inline constexpr Micros kJitter = 250ms;

inline Job BaseJob() {
  Job j;
  j.id = "01935f1c-8a00-7000-8000-000000000001";
  j.queue_name = "emails";
  j.payload = R"({"to":"a@example.com"})";
  j.priority = 5;
  j.retry_count = 1;
  j.max_retries = 3;
  j.timeout_seconds = 300;
  j.backoff = {1000ms, 60000ms, 500ms};
  j.tags = {{"team", "core"}};
  j.idempotency_key = "idem-1";
  j.created_at = kT0 - 1h;
  j.updated_at = kT0 - 1min;
  j.scheduled_at = kT0 - 1h;
  j.attempts = 1;
  return j;
}

// A consistent job in each status. The processing job is held by worker "w1"
// under "lease-1", started 10 s ago, lease valid for 20 s more; the scheduled
// job is due exactly now.
inline Job JobIn(JobStatus s) {
  Job j = BaseJob();
  j.status = s;
  switch (s) {
    case JobStatus::kPending:
      break;
    case JobStatus::kScheduled:
      j.scheduled_at = kT0;
      j.last_error = "boom";
      break;
    case JobStatus::kProcessing:
      j.started_at = kT0 - 10s;
      j.assigned_worker_id = "w1";
      j.lease_id = "lease-1";
      j.lease_expires_at = kT0 + 20s;
      j.attempts = 2;
      break;
    case JobStatus::kCompleted:
      j.started_at = kT0 - 20s;
      j.completed_at = kT0 - 5s;
      j.result = R"({"ok":true})";
      j.attempts = 2;
      break;
    case JobStatus::kDeadletter:
      j.retry_count = 3;
      j.last_error = "boom";
      j.error_fingerprint = ErrorFingerprint("boom");
      j.dead_reason = DeadReason::kMaxRetriesExceeded;
      j.started_at = kT0 - 6s;
      j.deadlettered_at = kT0 - 5s;
      j.completed_at = kT0 - 5s;
      j.attempts = 4;
      break;
    case JobStatus::kCancelled:
      j.completed_at = kT0 - 5s;
      break;
    case JobStatus::kQuarantined:
      j.retry_count = 2;
      j.crash_count = 3;
      j.lease_expiries = 3;
      j.last_error = "lease expired";
      j.error_fingerprint = ErrorFingerprint("lease expired");
      j.started_at = kT0 - 40s;
      j.completed_at = kT0 - 5s;
      j.attempts = 3;
      break;
    case JobStatus::kBlocked:  // created waiting for its dependencies, never ran
      j.attempts = 0;
      j.retry_count = 0;
      break;
  }
  return j;
}

// The canonical event of each kind, by variant index; lease events carry the
// processing job's own worker and lease.
inline Event EventOfKind(size_t kind) {
  switch (kind) {
    case 0:
      return event::Claim{"w2", "lease-2", 30s};
    case 1:
      return event::Promote{};
    case 2:
      return event::Heartbeat{"w1", "lease-1", 30s};
    case 3:
      return event::Complete{"w1", "lease-1", R"({"sent":true})"};
    case 4:
      return event::Fail{"w1", "lease-1", "smtp 550", false, std::nullopt};
    case 5:
      return event::LeaseExpiry{};
    case 6:
      return event::Deadline{};
    case 7:
      return event::Cancel{};
    case 8:
      return event::Retry{"dlq_retry", std::nullopt, std::nullopt};
    case 9:
      return event::UpdatePayload{R"({"to":"b@example.com"})"};
    case 10:
      return event::Release{"w1"};
    case 11:
      return event::SetPriority{42};
    case 12:
      return event::ReleaseQuarantine{};
    case 13:
      return event::Snooze{"w1", "lease-1", 90s};
    case 14:
      return event::Unblock{"dep-1"};
    case 15:
      return event::Block{};
    case 16:
      return event::Move{"emails-slow", "ops@alice", std::nullopt};
  }
  ADD_FAILURE() << "no event kind " << kind;
  return event::Promote{};
}

inline Result<Change> ApplyAt(const Job& job, const Event& e, Instant now = kT0,
                              uint64_t draw = kJitterDraw) {
  FixedRandom random(draw);
  return Apply(job, e, now, random);
}

// Applies an event that must be accepted; a refusal fails the test and
// returns a change that leaves the job as it was.
inline Change ApplyOk(const Job& job, const Event& e, Instant now = kT0,
                      uint64_t draw = kJitterDraw) {
  Result<Change> r = ApplyAt(job, e, now, draw);
  if (!r.ok()) {
    ADD_FAILURE() << EventName(e) << " on " << JobStatusName(job.status)
                  << " refused: " << r.status().ToString();
    Change c;
    c.before = c.after = job;
    return c;
  }
  return std::move(r).value();
}

inline void ClearLease(Job& j) {
  j.assigned_worker_id.reset();
  j.lease_id.reset();
  j.lease_expires_at.reset();
}

// A processing job (held by w1 with lease-1) at `retry_count` of `max_retries`.
inline Job ProcessingWithRetries(int retry_count, int max_retries) {
  Job j = JobIn(JobStatus::kProcessing);
  j.retry_count = retry_count;
  j.max_retries = max_retries;
  return j;
}

// The holder's failure of an attempt.
inline event::Fail FailBy(std::string error = "boom") {
  return event::Fail{"w1", "lease-1", std::move(error), false, std::nullopt};
}

// A job in the DLQ after two lost leases.
inline Job DeadJob() {
  Job j = JobIn(JobStatus::kDeadletter);
  j.dead_reason = DeadReason::kLeaseExpired;
  j.lease_expiries = 2;
  return j;
}

}  // namespace redrive
