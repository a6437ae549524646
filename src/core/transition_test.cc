// The job state machine, table-tested over every (status, event) pair, then
// focused tests of each transition with exact times (a fixed base instant) and
// fixed jitter (FixedRandom). No clock is read and nothing sleeps.
#include "core/transition.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>

#include "core/ids.h"
#include "core/ids_test_util.h"
#include "core/time_format.h"

namespace redrive {

// gtest printers (found by ADL) so that a failed comparison shows fields.
void PrintTo(JobStatus s, std::ostream* os) { *os << JobStatusName(s); }
void PrintTo(DeadReason r, std::ostream* os) { *os << "DeadReason(" << DeadReasonName(r) << ")"; }
void PrintTo(ErrorCode c, std::ostream* os) { *os << ErrorCodeName(c); }
void PrintTo(Outcome o, std::ostream* os) { *os << "Outcome(" << Describe(o).name << ")"; }

namespace {

std::string Opt(const std::optional<std::string>& s) { return s ? "\"" + *s + "\"" : "null"; }
std::string Opt(const std::optional<Instant>& t) { return t ? FormatTime(*t) : "null"; }

}  // namespace

void PrintTo(const Job& j, std::ostream* os) {
  *os << "Job{status=" << JobStatusName(j.status) << " payload=" << j.payload
      << " result=" << Opt(j.result) << " priority=" << j.priority
      << " retry_count=" << j.retry_count << " max_retries=" << j.max_retries
      << " last_error=" << Opt(j.last_error) << " dead_reason=" << DeadReasonName(j.dead_reason)
      << " updated_at=" << FormatTime(j.updated_at)
      << " scheduled_at=" << FormatTime(j.scheduled_at) << " started_at=" << Opt(j.started_at)
      << " completed_at=" << Opt(j.completed_at) << " expires_at=" << Opt(j.expires_at)
      << " deadlettered_at=" << Opt(j.deadlettered_at) << " worker=" << Opt(j.assigned_worker_id)
      << " lease_id=" << Opt(j.lease_id) << " lease_expires_at=" << Opt(j.lease_expires_at)
      << " attempts=" << j.attempts << " lease_expiries=" << j.lease_expiries << "}";
}

void PrintTo(const HistoryEntry& h, std::ostream* os) {
  *os << "History{" << h.event_type << " worker=" << Opt(h.worker_id) << " " << h.details_json
      << " at " << FormatTime(h.created_at) << "}";
}

namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using std::chrono::seconds;

static_assert(std::variant_size_v<Event> == 12, "a new event kind needs rows in the table");
constexpr size_t kEventKinds = std::variant_size_v<Event>;

// 2026-11-29T12:00:00.000Z: "now" in every test unless stated.
const Instant kT0 = std::chrono::time_point_cast<Micros>(
    std::chrono::sys_days{std::chrono::year{2026} / 11 / 29} + std::chrono::hours{12});

// The fixed jitter: with the default 500 ms jitter bound, FixedRandom(250'000)
// draws 250'000 µs (UniformInclusive = value % (bound + 1)).
constexpr uint64_t kJitterDraw = 250'000;
constexpr Micros kJitter = 250ms;

Job BaseJob() {
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
Job JobIn(JobStatus s) {
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
      j.dead_reason = DeadReason::kMaxRetriesExceeded;
      j.started_at = kT0 - 6s;
      j.deadlettered_at = kT0 - 5s;
      j.completed_at = kT0 - 5s;
      j.attempts = 4;
      break;
    case JobStatus::kCancelled:
      j.completed_at = kT0 - 5s;
      break;
  }
  return j;
}

// The canonical event of each kind, by variant index; lease events carry the
// processing job's own worker and lease.
Event EventOfKind(size_t kind) {
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
  }
  ADD_FAILURE() << "no event kind " << kind;
  return event::Promote{};
}

Result<Change> ApplyAt(const Job& job, const Event& e, Instant now = kT0,
                       uint64_t draw = kJitterDraw) {
  FixedRandom random(draw);
  return Apply(job, e, now, random);
}

// Applies an event that must be accepted; a refusal fails the test and
// returns a change that leaves the job as it was.
Change ApplyOk(const Job& job, const Event& e, Instant now = kT0, uint64_t draw = kJitterDraw) {
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

void ClearLease(Job& j) {
  j.assigned_worker_id.reset();
  j.lease_id.reset();
  j.lease_expires_at.reset();
}

// ---------------------------------------------------------------------------
// The table: every (status, event kind) pair.

struct ExpectedHistory {
  std::string event_type;
  std::optional<std::string> worker_id;
  std::string details_json;
};

struct Expectation {
  ErrorCode code = ErrorCode::kOk;
  std::function<void(Job&)> setup;   // tweaks the canonical job before applying
  std::function<void(Job&)> mutate;  // turns a copy of `before` into the expected `after`
  std::optional<ExpectedHistory> history;
  bool payload_changed = false;
  bool result_changed = false;
};

Expectation Refused(ErrorCode code, std::function<void(Job&)> setup = nullptr) {
  Expectation e;
  e.code = code;
  e.setup = std::move(setup);
  return e;
}

Expectation Accepted(std::function<void(Job&)> mutate, std::optional<ExpectedHistory> history,
                     std::function<void(Job&)> setup = nullptr) {
  Expectation e;
  e.mutate = std::move(mutate);
  e.history = std::move(history);
  e.setup = std::move(setup);
  return e;
}

using Key = std::pair<JobStatus, size_t>;

std::map<Key, Expectation> BuildTable() {
  using S = JobStatus;
  constexpr ErrorCode kConflict = ErrorCode::kConflict;
  constexpr ErrorCode kLease = ErrorCode::kLeaseExpired;
  const S kAll[] = {S::kPending,   S::kScheduled,  S::kProcessing,
                    S::kCompleted, S::kDeadletter, S::kCancelled};
  auto expires_now = [](Job& j) { j.expires_at = kT0; };
  auto lease_ends_now = [](Job& j) { j.lease_expires_at = kT0; };
  std::map<Key, Expectation> t;

  // 0 Claim: only pending.
  for (S s : kAll) t[{s, 0}] = Refused(kConflict);
  t[{S::kPending, 0}] = Accepted(
      [](Job& j) {
        j.status = S::kProcessing;
        j.started_at = kT0;
        j.attempts = 2;
        j.assigned_worker_id = "w2";
        j.lease_id = "lease-2";
        j.lease_expires_at = kT0 + 30s;
      },
      ExpectedHistory{"processing", "w2", R"({"lease_id":"lease-2","attempt":2})"});

  // 1 Promote: only a due scheduled job; writes no history.
  for (S s : kAll) t[{s, 1}] = Refused(kConflict);
  t[{S::kScheduled, 1}] = Accepted([](Job& j) { j.status = S::kPending; }, std::nullopt);

  // 2 Heartbeat, 3 Complete, 4 Fail: only the holder of a processing job; a
  // completed job is CONFLICT, any other status means the lease is gone.
  for (size_t k : {2u, 3u, 4u}) {
    for (S s : kAll) t[{s, k}] = Refused(s == S::kCompleted ? kConflict : kLease);
  }
  t[{S::kProcessing, 2}] = Accepted([](Job& j) { j.lease_expires_at = kT0 + 30s; }, std::nullopt);
  {
    Expectation e = Accepted(
        [](Job& j) {
          j.status = S::kCompleted;
          j.completed_at = kT0;
          j.result = R"({"sent":true})";
          ClearLease(j);
        },
        ExpectedHistory{"completed", "w1", "{}"});
    e.result_changed = true;
    t[{S::kProcessing, 3}] = std::move(e);
  }
  // retry_count 1 -> 2: delay(2) = min(1000·2, 60000) ms + 250 ms jitter.
  t[{S::kProcessing, 4}] = Accepted(
      [](Job& j) {
        j.status = S::kScheduled;
        j.retry_count = 2;
        j.scheduled_at = kT0 + 2250ms;
        j.last_error = "smtp 550";
        ClearLease(j);
      },
      ExpectedHistory{
          "retry_scheduled", "w1",
          R"({"error":"smtp 550","retry_count":2,"next_run":"2026-11-29T12:00:02.250Z"})"});

  // 5 LeaseExpiry: only processing, and only once the lease has ended.
  for (S s : kAll) t[{s, 5}] = Refused(kConflict);
  t[{S::kProcessing, 5}] = Accepted(
      [](Job& j) {
        j.status = S::kScheduled;
        j.retry_count = 2;
        j.lease_expiries = 1;
        j.scheduled_at = kT0 + 2250ms;
        j.last_error = "lease expired";
        ClearLease(j);
      },
      ExpectedHistory{
          "lease_expired", "w1",
          R"({"error":"lease expired","retry_count":2,"next_run":"2026-11-29T12:00:02.250Z"})"},
      lease_ends_now);

  // 6 Deadline: pending or scheduled past expires_at; a running job is not
  // interrupted and terminal jobs stay as they are.
  for (S s : kAll) t[{s, 6}] = Refused(kConflict, expires_now);
  for (S s : {S::kPending, S::kScheduled}) {
    t[{s, 6}] = Accepted(
        [](Job& j) {
          j.status = S::kDeadletter;
          j.dead_reason = DeadReason::kExpired;
          j.deadlettered_at = kT0;
          j.completed_at = kT0;
          j.last_error = "deadline passed before the job could run";
        },
        ExpectedHistory{"deadlettered", std::nullopt,
                        R"({"error":"deadline passed before the job could run",)"
                        R"("reason":"expired","total_retries":1})"},
        expires_now);
  }

  // 7 Cancel: any non-terminal status; clears a lease.
  for (S s : kAll) t[{s, 7}] = Refused(kConflict);
  for (S s : {S::kPending, S::kScheduled, S::kProcessing}) {
    t[{s, 7}] = Accepted(
        [](Job& j) {
          j.status = S::kCancelled;
          j.completed_at = kT0;
          ClearLease(j);
        },
        ExpectedHistory{"cancelled", std::nullopt, "{}"});
  }

  // 8 Retry (redrive): deadletter or cancelled -> pending, due now.
  for (S s : kAll) t[{s, 8}] = Refused(kConflict);
  for (S s : {S::kDeadletter, S::kCancelled}) {
    t[{s, 8}] = Accepted(
        [](Job& j) {
          j.status = S::kPending;
          j.scheduled_at = kT0;
          j.retry_count = 0;
          j.last_error.reset();
          j.dead_reason = DeadReason::kNone;
          j.deadlettered_at.reset();
          j.completed_at.reset();
        },
        ExpectedHistory{"retried", std::nullopt, R"({"source":"dlq_retry"})"});
  }

  // 9 UpdatePayload: only in the DLQ.
  for (S s : kAll) t[{s, 9}] = Refused(kConflict);
  {
    Expectation e = Accepted([](Job& j) { j.payload = R"({"to":"b@example.com"})"; },
                             ExpectedHistory{"payload_updated", std::nullopt, "{}"});
    e.payload_changed = true;
    t[{S::kDeadletter, 9}] = std::move(e);
  }

  // 10 Release: only processing, by its holder; no retry charged.
  for (S s : kAll) t[{s, 10}] = Refused(kConflict);
  t[{S::kProcessing, 10}] = Accepted(
      [](Job& j) {
        j.status = S::kPending;
        ClearLease(j);
      },
      ExpectedHistory{"released", "w1", "{}"});

  // 11 SetPriority: anything but completed or cancelled (a DLQ job may be
  // reprioritised before its redrive); writes no history.
  for (S s : kAll) {
    if (s == S::kCompleted || s == S::kCancelled) {
      t[{s, 11}] = Refused(kConflict);
    } else {
      t[{s, 11}] = Accepted([](Job& j) { j.priority = 42; }, std::nullopt);
    }
  }
  return t;
}

const std::map<Key, Expectation>& Table() {
  static const auto* table = new std::map<Key, Expectation>(BuildTable());
  return *table;
}

TEST(TransitionTableTest, CoversEveryStatusEventPair) {
  EXPECT_EQ(Table().size(), std::size(kAllStatuses) * kEventKinds);
}

class TransitionTableTest : public ::testing::TestWithParam<std::tuple<JobStatus, size_t>> {};

TEST_P(TransitionTableTest, AppliesOrRefusesExactly) {
  const auto [status, kind] = GetParam();
  const auto it = Table().find({status, kind});
  ASSERT_NE(it, Table().end()) << "no table row";
  const Expectation& want = it->second;

  Job job = JobIn(status);
  if (want.setup) want.setup(job);
  const Event e = EventOfKind(kind);
  const Result<Change> r = ApplyAt(job, e);

  if (want.code != ErrorCode::kOk) {
    ASSERT_FALSE(r.ok()) << "accepted; after = " << ::testing::PrintToString(r->after);
    EXPECT_EQ(r.status().code(), want.code) << r.status().ToString();
    EXPECT_FALSE(r.status().message().empty());
    return;
  }
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Change& c = *r;
  EXPECT_EQ(c.before, job);
  Job expected = job;
  want.mutate(expected);
  expected.updated_at = kT0;
  EXPECT_EQ(c.after, expected);
  EXPECT_EQ(c.before.status, status);
  EXPECT_EQ(c.before.lease_id, job.lease_id);
  if (status == JobStatus::kProcessing) {
    EXPECT_EQ(c.before.lease_id, "lease-1");
  }
  EXPECT_EQ(c.after.payload != c.before.payload, want.payload_changed);
  EXPECT_EQ(c.after.result != c.before.result, want.result_changed);
  // The history entry is the one the outcome table names for the outcome.
  const char* history_type = Describe(c.outcome).history_type;
  EXPECT_EQ(c.history.has_value(), history_type != nullptr) << Describe(c.outcome).name;
  if (c.history && history_type) {
    EXPECT_EQ(c.history->event_type, history_type);
  }
  if (!want.history) {
    EXPECT_FALSE(c.history.has_value()) << ::testing::PrintToString(*c.history);
    return;
  }
  ASSERT_TRUE(c.history.has_value());
  EXPECT_TRUE(IsUuid(c.history->id)) << c.history->id;  // assigned by Apply
  EXPECT_EQ(c.history->job_id, job.id);
  EXPECT_EQ(c.history->event_type, want.history->event_type);
  EXPECT_EQ(c.history->worker_id, want.history->worker_id);
  EXPECT_EQ(c.history->details_json, want.history->details_json);
  EXPECT_EQ(c.history->created_at, kT0);
}

INSTANTIATE_TEST_SUITE_P(AllPairs, TransitionTableTest,
                         ::testing::Combine(::testing::ValuesIn(kAllStatuses),
                                            ::testing::Range<size_t>(0, kEventKinds)),
                         [](const ::testing::TestParamInfo<std::tuple<JobStatus, size_t>>& info) {
                           return std::string(JobStatusName(std::get<0>(info.param))) + "_" +
                                  EventName(EventOfKind(std::get<1>(info.param)));
                         });

TEST(HistoryEntryTest, CreatedHistoryNamesTheQueueAndWhenAScheduledJobIsDue) {
  FixedRandom random(7);
  Job job = BaseJob();
  job.status = JobStatus::kPending;
  const HistoryEntry pending = CreatedHistory(job, kT0, random);
  EXPECT_TRUE(IsUuid(pending.id)) << pending.id;
  EXPECT_EQ(pending.job_id, job.id);
  EXPECT_EQ(pending.event_type, "created");
  EXPECT_EQ(pending.worker_id, std::nullopt);
  EXPECT_EQ(pending.details_json, R"({"queue_name":"emails"})");
  EXPECT_EQ(pending.created_at, kT0);
  job.status = JobStatus::kScheduled;
  job.scheduled_at = kT0 + 90s;
  EXPECT_EQ(CreatedHistory(job, kT0, random).details_json,
            R"({"queue_name":"emails","scheduled_at":"2026-11-29T12:01:30.000Z"})");
}

// The outcome of every accepted (status, event kind) pair of the table.
TEST(TransitionTableTest, NamesTheOutcomeOfEveryAcceptedPair) {
  using S = JobStatus;
  using O = Outcome;
  const std::map<Key, Outcome> want = {
      {{S::kPending, 0}, O::kClaimed},
      {{S::kScheduled, 1}, O::kPromoted},
      {{S::kProcessing, 2}, O::kLeaseExtended},
      {{S::kProcessing, 3}, O::kCompleted},
      {{S::kProcessing, 4}, O::kFailedRetryScheduled},
      {{S::kProcessing, 5}, O::kLeaseLostRetryScheduled},
      {{S::kPending, 6}, O::kDeadlineDeadlettered},
      {{S::kScheduled, 6}, O::kDeadlineDeadlettered},
      {{S::kPending, 7}, O::kCancelled},
      {{S::kScheduled, 7}, O::kCancelled},
      {{S::kProcessing, 7}, O::kCancelled},
      {{S::kDeadletter, 8}, O::kRedriven},
      {{S::kCancelled, 8}, O::kRetriedFromCancelled},
      {{S::kDeadletter, 9}, O::kPayloadUpdated},
      {{S::kProcessing, 10}, O::kReleased},
      {{S::kPending, 11}, O::kPriorityChanged},
      {{S::kScheduled, 11}, O::kPriorityChanged},
      {{S::kProcessing, 11}, O::kPriorityChanged},
      {{S::kDeadletter, 11}, O::kPriorityChanged},
  };
  size_t accepted = 0;
  for (const auto& [key, expectation] : Table()) {
    if (expectation.code != ErrorCode::kOk) continue;
    ++accepted;
    const auto it = want.find(key);
    ASSERT_NE(it, want.end()) << JobStatusName(key.first) << " "
                              << EventName(EventOfKind(key.second));
    Job job = JobIn(key.first);
    if (expectation.setup) expectation.setup(job);
    EXPECT_EQ(ApplyOk(job, EventOfKind(key.second)).outcome, it->second)
        << JobStatusName(key.first) << " " << EventName(EventOfKind(key.second));
  }
  EXPECT_EQ(accepted, want.size());
}

TEST(EventNameTest, NamesEveryKind) {
  const char* const kWant[] = {"claim", "promote",        "heartbeat", "complete",
                               "fail",  "lease_expiry",   "deadline",  "cancel",
                               "retry", "update_payload", "release",   "set_priority"};
  for (size_t k = 0; k < kEventKinds; ++k) EXPECT_STREQ(EventName(EventOfKind(k)), kWant[k]);
}

// ---------------------------------------------------------------------------
// Claim

TEST(ClaimTest, LeaseIsNowPlusDurationWhenWithinTimeout) {
  Job j = JobIn(JobStatus::kPending);
  j.timeout_seconds = 300;
  const Change c = ApplyOk(j, event::Claim{"w9", "L", 45s});
  EXPECT_EQ(c.after.status, JobStatus::kProcessing);
  EXPECT_EQ(c.after.started_at, kT0);
  EXPECT_EQ(c.after.lease_expires_at, kT0 + 45s);
  EXPECT_EQ(c.after.attempts, 2);
  EXPECT_EQ(c.after.retry_count, 1);  // a claim charges no retry
  EXPECT_EQ(c.after.assigned_worker_id, "w9");
  EXPECT_EQ(c.after.lease_id, "L");
  EXPECT_EQ(c.before.status, JobStatus::kPending);
  EXPECT_EQ(c.before.lease_id, std::nullopt);
}

TEST(ClaimTest, LeaseIsCappedAtTheAttemptTimeout) {
  Job j = JobIn(JobStatus::kPending);
  j.timeout_seconds = 10;
  EXPECT_EQ(ApplyOk(j, event::Claim{"w", "L", 30s}).after.lease_expires_at, kT0 + 10s);
  j.timeout_seconds = 30;  // equal: either bound
  EXPECT_EQ(ApplyOk(j, event::Claim{"w", "L", 30s}).after.lease_expires_at, kT0 + 30s);
}

TEST(ClaimTest, AttemptsCountEveryClaim) {
  Job j = JobIn(JobStatus::kPending);
  j.attempts = 0;
  const Change c = ApplyOk(j, event::Claim{"w", "L", 30s});
  EXPECT_EQ(c.after.attempts, 1);
  EXPECT_EQ(c.history->details_json, R"({"lease_id":"L","attempt":1})");
}

TEST(ClaimTest, NeverAtOrAfterExpiresAt) {
  Job j = JobIn(JobStatus::kPending);
  j.expires_at = kT0;
  auto r = ApplyAt(j, event::Claim{"w", "L", 30s});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kConflict);
  j.expires_at = kT0 - 1s;
  EXPECT_EQ(ApplyAt(j, event::Claim{"w", "L", 30s}).status().code(), ErrorCode::kConflict);
  j.expires_at = kT0 + 1us;
  EXPECT_TRUE(ApplyAt(j, event::Claim{"w", "L", 30s}).ok());
}

// ---------------------------------------------------------------------------
// Promote

TEST(PromoteTest, OnlyWhenDue) {
  Job j = JobIn(JobStatus::kScheduled);
  j.scheduled_at = kT0 + 1us;
  EXPECT_EQ(ApplyAt(j, event::Promote{}).status().code(), ErrorCode::kConflict);
  EXPECT_EQ(ApplyOk(j, event::Promote{}, kT0 + 1us).after.status, JobStatus::kPending);
  EXPECT_EQ(ApplyOk(j, event::Promote{}, kT0 + 1h).after.scheduled_at, kT0 + 1us);
}

// ---------------------------------------------------------------------------
// Heartbeat

TEST(HeartbeatTest, ExtendsFromNowByTheGivenDuration) {
  const Job j = JobIn(JobStatus::kProcessing);
  const Change c = ApplyOk(j, event::Heartbeat{"w1", "lease-1", 60s}, kT0 + 5s);
  EXPECT_EQ(c.after.lease_expires_at, kT0 + 65s);
  EXPECT_EQ(c.after.status, JobStatus::kProcessing);
  EXPECT_EQ(c.after.lease_id, "lease-1");
  EXPECT_EQ(c.after.started_at, j.started_at);
  EXPECT_FALSE(c.history.has_value());
  EXPECT_EQ(c.before.lease_id, "lease-1");
}

TEST(HeartbeatTest, CappedAtStartedAtPlusTimeout) {
  Job j = JobIn(JobStatus::kProcessing);
  j.started_at = kT0 - 290s;
  j.timeout_seconds = 300;
  j.lease_expires_at = kT0 + 5s;
  EXPECT_EQ(ApplyOk(j, event::Heartbeat{"w1", "lease-1", 30s}).after.lease_expires_at, kT0 + 10s);
  // Already at the cap: stays there.
  j.lease_expires_at = kT0 + 10s;
  EXPECT_EQ(ApplyOk(j, event::Heartbeat{"w1", "lease-1", 3600s}).after.lease_expires_at, kT0 + 10s);
}

TEST(HeartbeatTest, RefusedWithWrongLeaseId) {
  const auto r = ApplyAt(JobIn(JobStatus::kProcessing), event::Heartbeat{"w1", "lease-0", 30s});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kLeaseExpired);
}

TEST(HeartbeatTest, RefusedWithWrongWorkerId) {
  const auto r = ApplyAt(JobIn(JobStatus::kProcessing), event::Heartbeat{"w2", "lease-1", 30s});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kLeaseExpired);
}

TEST(HeartbeatTest, ExpiredLeaseIsNeverExtended) {
  Job j = JobIn(JobStatus::kProcessing);
  j.lease_expires_at = kT0;  // == now counts as expired
  EXPECT_EQ(ApplyAt(j, event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
            ErrorCode::kLeaseExpired);
  j.lease_expires_at = kT0 - 1s;
  EXPECT_EQ(ApplyAt(j, event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
            ErrorCode::kLeaseExpired);
  j.lease_expires_at = kT0 + 1us;  // one microsecond left: still held
  EXPECT_EQ(ApplyOk(j, event::Heartbeat{"w1", "lease-1", 30s}).after.lease_expires_at, kT0 + 30s);
}

TEST(HeartbeatTest, RefusedWhenNotProcessing) {
  for (JobStatus s : {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kDeadletter,
                      JobStatus::kCancelled}) {
    Job j = JobIn(s);
    EXPECT_EQ(ApplyAt(j, event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
              ErrorCode::kLeaseExpired)
        << JobStatusName(s);
  }
  EXPECT_EQ(
      ApplyAt(JobIn(JobStatus::kCompleted), event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
      ErrorCode::kConflict);
}

// ---------------------------------------------------------------------------
// Complete

TEST(CompleteTest, StoresResultAndClearsLease) {
  const Change c =
      ApplyOk(JobIn(JobStatus::kProcessing), event::Complete{"w1", "lease-1", std::nullopt});
  EXPECT_EQ(c.after.status, JobStatus::kCompleted);
  EXPECT_EQ(c.after.result, std::nullopt);
  EXPECT_EQ(c.after.completed_at, kT0);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.after.assigned_worker_id, std::nullopt);
  EXPECT_EQ(c.after.lease_expires_at, std::nullopt);
}

TEST(CompleteTest, CompletingTwiceIsConflict) {
  const event::Complete done{"w1", "lease-1", "1"};
  const Change first = ApplyOk(JobIn(JobStatus::kProcessing), done);
  const auto second = ApplyAt(first.after, done, kT0 + 1s);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kConflict);
  // Whoever asks.
  EXPECT_EQ(ApplyAt(first.after, event::Complete{"w2", "x", std::nullopt}).status().code(),
            ErrorCode::kConflict);
}

TEST(CompleteTest, CancelledJobAnswersLeaseExpired) {
  const Change cancelled = ApplyOk(JobIn(JobStatus::kProcessing), event::Cancel{});
  const auto r = ApplyAt(cancelled.after, event::Complete{"w1", "lease-1", "1"}, kT0 + 1s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(cancelled.after, event::Fail{"w1", "lease-1", "e", false, std::nullopt})
                .status()
                .code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(cancelled.after, event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
            ErrorCode::kLeaseExpired);
}

TEST(CompleteTest, StaleHolderAfterReclaimAnswersLeaseExpired) {
  // w1's lease expired, the job was retried and claimed again by w2.
  Job j = JobIn(JobStatus::kProcessing);
  j.lease_expires_at = kT0;
  Job reaped = ApplyOk(j, event::LeaseExpiry{}).after;
  Job again = ApplyOk(reaped, event::Promote{}, reaped.scheduled_at).after;
  Job reclaimed = ApplyOk(again, event::Claim{"w2", "lease-2", 30s}, reaped.scheduled_at).after;
  const Instant later = reaped.scheduled_at + 1s;
  EXPECT_EQ(ApplyAt(reclaimed, event::Complete{"w1", "lease-1", "1"}, later).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(reclaimed, event::Complete{"w1", "lease-2", "1"}, later).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_TRUE(ApplyAt(reclaimed, event::Complete{"w2", "lease-2", "1"}, later).ok());
}

TEST(CompleteTest, RefusedOnExpiredLease) {
  Job j = JobIn(JobStatus::kProcessing);
  j.lease_expires_at = kT0;
  EXPECT_EQ(ApplyAt(j, event::Complete{"w1", "lease-1", "1"}).status().code(),
            ErrorCode::kLeaseExpired);
}

// ---------------------------------------------------------------------------
// Fail and backoff

Job ProcessingWithRetries(int retry_count, int max_retries) {
  Job j = JobIn(JobStatus::kProcessing);
  j.retry_count = retry_count;
  j.max_retries = max_retries;
  return j;
}

event::Fail FailBy(std::string error = "boom") {
  return event::Fail{"w1", "lease-1", std::move(error), false, std::nullopt};
}

TEST(FailTest, BackoffDelayIsExactForEachRetry) {
  // delay(n) = min(1000 ms · 2^(n−1), 60000 ms) + 250 ms (fixed jitter).
  const milliseconds kWant[] = {1000ms, 2000ms, 4000ms, 8000ms, 16000ms, 32000ms, 60000ms, 60000ms};
  for (int n = 1; n <= 8; ++n) {
    SCOPED_TRACE(n);
    const Change c = ApplyOk(ProcessingWithRetries(n - 1, 10), FailBy());
    EXPECT_EQ(c.after.status, JobStatus::kScheduled);
    EXPECT_EQ(c.after.retry_count, n);
    EXPECT_EQ(c.after.scheduled_at, kT0 + kWant[n - 1] + kJitter);
    EXPECT_EQ(c.history->event_type, "retry_scheduled");
    EXPECT_EQ(c.history->details_json, R"({"error":"boom","retry_count":)" + std::to_string(n) +
                                           R"(,"next_run":")" +
                                           FormatTime(kT0 + kWant[n - 1] + kJitter) + R"("})");
  }
}

TEST(FailTest, JitterBoundIsInclusive) {
  const Job j = ProcessingWithRetries(0, 3);
  EXPECT_EQ(ApplyOk(j, FailBy(), kT0, 500'000).after.scheduled_at, kT0 + 1500ms);
  EXPECT_EQ(ApplyOk(j, FailBy(), kT0, 500'001).after.scheduled_at, kT0 + 1000ms);
  EXPECT_EQ(ApplyOk(j, FailBy(), kT0, 0).after.scheduled_at, kT0 + 1000ms);
}

TEST(FailTest, AtMaxRetriesGoesToTheDlq) {
  const Change c = ApplyOk(ProcessingWithRetries(3, 3), FailBy("still broken"));
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kMaxRetriesExceeded);
  EXPECT_EQ(c.after.retry_count, 3);
  EXPECT_EQ(c.after.last_error, "still broken");
  EXPECT_EQ(c.after.deadlettered_at, kT0);
  EXPECT_EQ(c.after.completed_at, kT0);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.outcome, Outcome::kFailedDeadlettered);
  EXPECT_EQ(c.history->event_type, "deadlettered");
  EXPECT_EQ(c.history->worker_id, "w1");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"still broken","reason":"max_retries_exceeded","total_retries":3})");
}

TEST(FailTest, ZeroMaxRetriesDeadLettersOnFirstFailure) {
  const Change c = ApplyOk(ProcessingWithRetries(0, 0), FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kMaxRetriesExceeded);
}

TEST(FailTest, NoRetryIsNonRetryable) {
  event::Fail f = FailBy("bad input");
  f.no_retry = true;
  f.retry_after = 1000ms;  // ignored
  const Change c = ApplyOk(ProcessingWithRetries(0, 3), f);
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kNonRetryable);
  EXPECT_EQ(c.after.retry_count, 0);
  EXPECT_EQ(c.history->details_json,
            R"({"error":"bad input","reason":"non_retryable","total_retries":0})");
}

TEST(FailTest, RetryAfterOverridesTheBackoff) {
  event::Fail f = FailBy();
  f.retry_after = 7000ms;
  const Change c = ApplyOk(ProcessingWithRetries(5, 10), f);  // backoff would be 32 s
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 7s);  // no jitter either
  EXPECT_EQ(c.after.retry_count, 6);
}

TEST(FailTest, RetryAfterDoesNotBypassMaxRetries) {
  event::Fail f = FailBy();
  f.retry_after = 7000ms;
  const Change c = ApplyOk(ProcessingWithRetries(3, 3), f);
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kMaxRetriesExceeded);
}

TEST(FailTest, ZeroDelayRetryIsPendingDirectly) {
  event::Fail f = FailBy();
  f.retry_after = 0ms;
  Change c = ApplyOk(ProcessingWithRetries(0, 3), f);
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.history->event_type, "retry_scheduled");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"boom","retry_count":1,"next_run":"2026-11-29T12:00:00.000Z"})");

  Job j = ProcessingWithRetries(2, 3);
  j.backoff = {0ms, 0ms, 0ms};  // a zero base retries at once
  c = ApplyOk(j, FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.after.retry_count, 3);
}

TEST(FailTest, RetryDueAtOrAfterDeadlineIsExpired) {
  Job j = ProcessingWithRetries(0, 3);  // next run would be now + 1 s + 250 ms
  j.expires_at = kT0 + 1250ms;
  Change c = ApplyOk(j, FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kExpired);
  EXPECT_EQ(c.after.retry_count, 0);
  EXPECT_EQ(c.history->details_json, R"({"error":"boom","reason":"expired","total_retries":0})");

  j.expires_at = kT0 + 1250ms + 1us;
  c = ApplyOk(j, FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 1250ms);
  EXPECT_EQ(c.after.expires_at, kT0 + 1250ms + 1us);
}

TEST(FailTest, RefusedWithForeignOrStaleLease) {
  const Job j = JobIn(JobStatus::kProcessing);
  EXPECT_EQ(ApplyAt(j, event::Fail{"w1", "lease-x", "e", false, std::nullopt}).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(j, event::Fail{"w2", "lease-1", "e", false, std::nullopt}).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(j, FailBy(), kT0 + 20s).status().code(), ErrorCode::kLeaseExpired);
}

TEST(FailTest, ErrorIsTruncatedTo2048BytesAtAUtf8Boundary) {
  const Job j = ProcessingWithRetries(0, 3);
  auto error_after = [&](const std::string& error) {
    return ApplyOk(j, FailBy(error)).after.last_error.value_or("<none>");
  };
  EXPECT_EQ(error_after(std::string(2048, 'x')), std::string(2048, 'x'));
  EXPECT_EQ(error_after(std::string(5000, 'x')), std::string(2048, 'x'));
  // A 2-, 3- and 4-byte character straddling the limit is dropped whole.
  EXPECT_EQ(error_after(std::string(2047, 'x') + "\xC3\xA9"), std::string(2047, 'x'));
  EXPECT_EQ(error_after(std::string(2046, 'x') + "\xE2\x82\xAC"), std::string(2046, 'x'));
  EXPECT_EQ(error_after(std::string(2045, 'x') + "\xF0\x9F\x98\x80" + "tail"),
            std::string(2045, 'x'));
  // One that ends exactly at the limit is kept.
  EXPECT_EQ(error_after(std::string(2044, 'x') + "\xF0\x9F\x98\x80" + "tail"),
            std::string(2044, 'x') + "\xF0\x9F\x98\x80");
  // The history carries the truncated text too.
  const Change c = ApplyOk(j, FailBy(std::string(3000, 'y')));
  EXPECT_EQ(c.history->details_json, R"({"error":")" + std::string(2048, 'y') +
                                         R"(","retry_count":1,"next_run":")" +
                                         FormatTime(kT0 + 1250ms) + R"("})");
}

TEST(FailTest, ErrorIsEscapedInHistory) {
  const Change c = ApplyOk(ProcessingWithRetries(0, 3), FailBy("said \"no\"\n\\"));
  EXPECT_EQ(c.after.last_error, "said \"no\"\n\\");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"said \"no\"\n\\","retry_count":1,"next_run":"2026-11-29T12:00:01.250Z"})");
}

// ---------------------------------------------------------------------------
// Lease expiry and timeouts

TEST(LeaseExpiryTest, RefusedWhileTheLeaseIsValid) {
  Job j = JobIn(JobStatus::kProcessing);
  j.lease_expires_at = kT0 + 1us;
  EXPECT_EQ(ApplyAt(j, event::LeaseExpiry{}).status().code(), ErrorCode::kConflict);
}

TEST(LeaseExpiryTest, CountsAsAFailureWithBackoff) {
  Job j = ProcessingWithRetries(0, 3);
  j.lease_expires_at = kT0 - 3s;  // noticed late
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.retry_count, 1);
  EXPECT_EQ(c.after.lease_expiries, 1);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 1250ms);  // from now, not from the lease's end
  EXPECT_EQ(c.after.last_error, "lease expired");
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.history->event_type, "lease_expired");
  EXPECT_EQ(c.history->worker_id, "w1");
  EXPECT_EQ(c.before.status, JobStatus::kProcessing);
  EXPECT_EQ(c.before.lease_id, "lease-1");
}

TEST(LeaseExpiryTest, AtTheLastRetryDeadLettersWithReasonLeaseExpired) {
  Job j = ProcessingWithRetries(3, 3);
  j.lease_expires_at = kT0;
  j.lease_expiries = 2;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ(c.after.lease_expiries, 3);
  EXPECT_EQ(c.after.deadlettered_at, kT0);
  EXPECT_EQ(c.outcome, Outcome::kLeaseLostDeadlettered);
  EXPECT_EQ(c.history->event_type, "deadlettered");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"lease expired","reason":"lease_expired","total_retries":3})");
}

TEST(LeaseExpiryTest, LeaseCappedAtTheAttemptTimeoutIsATimeout) {
  Job j = ProcessingWithRetries(0, 3);
  j.timeout_seconds = 60;
  j.started_at = kT0 - 60s;
  j.lease_expires_at = kT0;  // == started_at + timeout
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.last_error, "attempt timed out after 60s");
  EXPECT_THAT(*c.after.last_error, ::testing::HasSubstr("timed out"));
  EXPECT_EQ(c.after.lease_expiries, 1);
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.history->event_type, "lease_expired");

  // One microsecond short of the cap: a plain lease loss.
  j.lease_expires_at = kT0 - 1us;
  EXPECT_EQ(ApplyOk(j, event::LeaseExpiry{}).after.last_error, "lease expired");
}

TEST(LeaseExpiryTest, TimeoutOfTheLastAttemptIsReasonLeaseExpired) {
  Job j = ProcessingWithRetries(3, 3);
  j.timeout_seconds = 60;
  j.started_at = kT0 - 60s;
  j.lease_expires_at = kT0;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ(
      c.history->details_json,
      R"({"error":"attempt timed out after 60s","reason":"lease_expired","total_retries":3})");
}

TEST(LeaseExpiryTest, RetryAtOrAfterDeadlineIsExpired) {
  Job j = ProcessingWithRetries(0, 3);
  j.lease_expires_at = kT0;
  j.expires_at = kT0 + 1s;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kExpired);
  EXPECT_EQ(c.after.lease_expiries, 1);
}

// ---------------------------------------------------------------------------
// Deadline sweep

TEST(DeadlineTest, RefusedBeforeTheDeadlineOrWithoutOne) {
  for (JobStatus s : {JobStatus::kPending, JobStatus::kScheduled}) {
    Job j = JobIn(s);
    EXPECT_EQ(ApplyAt(j, event::Deadline{}).status().code(), ErrorCode::kConflict);
    j.expires_at = kT0 + 1us;
    EXPECT_EQ(ApplyAt(j, event::Deadline{}).status().code(), ErrorCode::kConflict);
    j.expires_at = kT0 - 1h;
    const Change c = ApplyOk(j, event::Deadline{});
    EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
    EXPECT_EQ(c.after.dead_reason, DeadReason::kExpired);
    EXPECT_EQ(c.after.expires_at, kT0 - 1h);
  }
}

TEST(DeadlineTest, ARunningJobIsNotInterrupted) {
  Job j = JobIn(JobStatus::kProcessing);
  j.expires_at = kT0 - 1s;
  EXPECT_EQ(ApplyAt(j, event::Deadline{}).status().code(), ErrorCode::kConflict);
  // ...and may still complete.
  EXPECT_EQ(ApplyOk(j, event::Complete{"w1", "lease-1", "1"}).after.status, JobStatus::kCompleted);
}

// ---------------------------------------------------------------------------
// Cancel

TEST(CancelTest, ProcessingJobLosesItsLease) {
  const Change c = ApplyOk(JobIn(JobStatus::kProcessing), event::Cancel{});
  EXPECT_EQ(c.after.status, JobStatus::kCancelled);
  EXPECT_EQ(c.after.assigned_worker_id, std::nullopt);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.after.lease_expires_at, std::nullopt);
  EXPECT_EQ(c.after.completed_at, kT0);
  EXPECT_EQ(c.after.retry_count, 1);  // not a failure
  EXPECT_EQ(c.before.status, JobStatus::kProcessing);
  EXPECT_EQ(c.before.lease_id, "lease-1");
}

// ---------------------------------------------------------------------------
// Retry (redrive)

Job DeadJob() {
  Job j = JobIn(JobStatus::kDeadletter);
  j.dead_reason = DeadReason::kLeaseExpired;
  j.lease_expiries = 2;
  return j;
}

TEST(RetryTest, ResetsFailureStateAndKeepsCounters) {
  const Job j = DeadJob();
  const Change c = ApplyOk(j, event::Retry{});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.after.retry_count, 0);
  EXPECT_EQ(c.after.last_error, std::nullopt);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kNone);
  EXPECT_EQ(c.after.deadlettered_at, std::nullopt);
  EXPECT_EQ(c.after.completed_at, std::nullopt);
  EXPECT_EQ(c.after.attempts, 4);
  EXPECT_EQ(c.after.lease_expiries, 2);
  EXPECT_EQ(c.after.payload, j.payload);
  EXPECT_EQ(c.after.max_retries, j.max_retries);
  EXPECT_EQ(c.history->details_json, R"({"source":"job_retry"})");
}

TEST(RetryTest, SetsANewDeadline) {
  Job j = DeadJob();
  j.expires_at = kT0 - 1h;
  const Change c = ApplyOk(j, event::Retry{"job_retry", kT0 + 1h, std::nullopt});
  EXPECT_EQ(c.after.expires_at, kT0 + 1h);
  EXPECT_EQ(c.history->details_json, R"({"source":"job_retry"})");
}

TEST(RetryTest, ClearsAPassedDeadline) {
  Job j = DeadJob();
  for (Instant passed : {kT0 - 1h, kT0}) {
    j.expires_at = passed;
    const Change c = ApplyOk(j, event::Retry{"dlq_retry", std::nullopt, std::nullopt});
    EXPECT_EQ(c.after.expires_at, std::nullopt);
    EXPECT_EQ(c.history->details_json, R"({"source":"dlq_retry","expires_at_cleared":true})");
  }
}

TEST(RetryTest, KeepsAFutureDeadline) {
  Job j = DeadJob();
  j.expires_at = kT0 + 1us;
  const Change c = ApplyOk(j, event::Retry{});
  EXPECT_EQ(c.after.expires_at, kT0 + 1us);
  EXPECT_EQ(c.history->details_json, R"({"source":"job_retry"})");
}

TEST(RetryTest, RefusesANewDeadlineNotInTheFuture) {
  for (Instant bad : {kT0 - 1s, kT0}) {
    const auto r = ApplyAt(DeadJob(), event::Retry{"job_retry", bad, std::nullopt});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kValidation);
    EXPECT_EQ(r.status().field(), "expires_at");
  }
}

TEST(RetryTest, RunAtInTheFutureIsScheduled) {
  Job j = DeadJob();
  j.expires_at = kT0 + 2s;  // passes before the throttled run: dropped
  const Change c = ApplyOk(j, event::Retry{"dlq_retry", std::nullopt, kT0 + 5s});
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 5s);
  EXPECT_EQ(c.after.expires_at, std::nullopt);
  EXPECT_EQ(c.history->details_json, R"({"source":"dlq_retry","expires_at_cleared":true,)"
                                     R"("run_at":"2026-11-29T12:00:05.000Z"})");
}

TEST(RetryTest, RunAtInThePastIsDueNow) {
  const Change c = ApplyOk(DeadJob(), event::Retry{"dlq_retry", std::nullopt, kT0 - 5s});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.history->details_json, R"({"source":"dlq_retry"})");
}

TEST(RetryTest, ARedrivenJobGetsAFullSetOfRetries) {
  const Job redriven = ApplyOk(DeadJob(), event::Retry{}).after;
  Job j = ApplyOk(redriven, event::Claim{"w", "L", 30s}).after;
  const Change c = ApplyOk(j, event::Fail{"w", "L", "again", false, std::nullopt});
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.retry_count, 1);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 1250ms);
  EXPECT_EQ(c.after.attempts, 5);
}

// ---------------------------------------------------------------------------
// UpdatePayload, Release, SetPriority

TEST(UpdatePayloadTest, OnlyInTheDlq) {
  const Change c = ApplyOk(DeadJob(), event::UpdatePayload{"[1,2]"});
  EXPECT_EQ(c.after.payload, "[1,2]");
  EXPECT_NE(c.after.payload, c.before.payload);
  EXPECT_EQ(c.after.result, c.before.result);
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  for (JobStatus s : {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kProcessing,
                      JobStatus::kCompleted, JobStatus::kCancelled}) {
    EXPECT_EQ(ApplyAt(JobIn(s), event::UpdatePayload{"[1,2]"}).status().code(),
              ErrorCode::kConflict)
        << JobStatusName(s);
  }
}

TEST(ReleaseTest, OnlyTheHolderAndNoRetryCharged) {
  const Job j = ProcessingWithRetries(2, 3);
  EXPECT_EQ(ApplyAt(j, event::Release{"w2"}).status().code(), ErrorCode::kConflict);
  const Change c = ApplyOk(j, event::Release{"w1"});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.retry_count, 2);
  EXPECT_EQ(c.after.attempts, 2);
  EXPECT_EQ(c.after.last_error, std::nullopt);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.after.assigned_worker_id, std::nullopt);
  EXPECT_EQ(c.after.lease_expires_at, std::nullopt);
  EXPECT_EQ(c.before.lease_id, "lease-1");
  // Claimable again at once.
  EXPECT_TRUE(ApplyAt(c.after, event::Claim{"w2", "lease-2", 30s}).ok());
}

TEST(SetPriorityTest, ChangesOnlyThePriority) {
  for (JobStatus s : {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kProcessing,
                      JobStatus::kDeadletter}) {
    const Job j = JobIn(s);
    const Change c = ApplyOk(j, event::SetPriority{-100});
    Job want = j;
    want.priority = -100;
    want.updated_at = kT0;
    EXPECT_EQ(c.after, want) << JobStatusName(s);
    EXPECT_FALSE(c.history.has_value());
  }
}

// ---------------------------------------------------------------------------
// Whole lifecycles

struct RunLimitCase {
  int max_retries;
  bool by_lease_expiry;  // attempts end by lease loss instead of fail
};

class RunLimitTest : public ::testing::TestWithParam<RunLimitCase> {};

// A job runs at most max_retries + 1 times: drive claim → failure → promote
// until the job lands in the DLQ, counting claims.
TEST_P(RunLimitTest, JobRunsAtMostMaxRetriesPlusOneTimes) {
  const RunLimitCase tc = GetParam();
  Job j = JobIn(JobStatus::kPending);
  j.retry_count = 0;
  j.attempts = 0;
  j.max_retries = tc.max_retries;
  Instant now = kT0;
  int runs = 0;
  while (j.status != JobStatus::kDeadletter && runs <= tc.max_retries + 5) {
    if (j.status == JobStatus::kScheduled) {
      ASSERT_GT(j.scheduled_at, now);
      now = j.scheduled_at;
      j = ApplyOk(j, event::Promote{}, now).after;
    }
    ASSERT_EQ(j.status, JobStatus::kPending);
    const std::string lease = "lease-" + std::to_string(runs);
    j = ApplyOk(j, event::Claim{"w", lease, 30s}, now).after;
    ++runs;
    ASSERT_EQ(j.attempts, runs);
    const int retries_before = j.retry_count;
    if (tc.by_lease_expiry) {
      now = *j.lease_expires_at;
      j = ApplyOk(j, event::LeaseExpiry{}, now).after;
    } else {
      now += 1s;
      j = ApplyOk(j, event::Fail{"w", lease, "boom", false, std::nullopt}, now).after;
    }
    if (j.status == JobStatus::kScheduled) {
      // Each retry waits exactly its backoff: 1 s, 2 s, 4 s … + 250 ms.
      const auto base = std::min<long long>(1000LL << retries_before, 60000);
      EXPECT_EQ(j.scheduled_at - now, milliseconds(base) + kJitter) << "run " << runs;
    }
  }
  EXPECT_EQ(runs, tc.max_retries + 1);
  EXPECT_EQ(j.attempts, tc.max_retries + 1);
  EXPECT_EQ(j.retry_count, tc.max_retries);
  EXPECT_EQ(j.status, JobStatus::kDeadletter);
  EXPECT_EQ(j.dead_reason,
            tc.by_lease_expiry ? DeadReason::kLeaseExpired : DeadReason::kMaxRetriesExceeded);
  EXPECT_EQ(j.lease_expiries, tc.by_lease_expiry ? runs : 0);
}

INSTANTIATE_TEST_SUITE_P(MaxRetries, RunLimitTest,
                         ::testing::Values(RunLimitCase{0, false}, RunLimitCase{1, false},
                                           RunLimitCase{3, false}, RunLimitCase{10, false},
                                           RunLimitCase{0, true}, RunLimitCase{3, true}),
                         [](const ::testing::TestParamInfo<RunLimitCase>& info) {
                           return std::to_string(info.param.max_retries) +
                                  (info.param.by_lease_expiry ? "_lease_expiry" : "_fail");
                         });

TEST(LifecycleTest, DefaultsReachTheDlqAboutSevenSecondsAfterFirstFailure) {
  // Spec: with {1000, 60000, 500} a job reaches the DLQ ~7 s after its first
  // failure (1 + 2 + 4 s of backoff plus jitter). Failures are immediate here.
  Job j = JobIn(JobStatus::kPending);
  j.retry_count = 0;
  Instant now = kT0;
  std::optional<Instant> first_failure;
  for (int run = 0; j.status != JobStatus::kDeadletter && run < 10; ++run) {
    if (j.status == JobStatus::kScheduled) now = j.scheduled_at;
    if (j.status == JobStatus::kScheduled) j = ApplyOk(j, event::Promote{}, now).after;
    j = ApplyOk(j, event::Claim{"w", "L", 30s}, now).after;
    j = ApplyOk(j, event::Fail{"w", "L", "x", false, std::nullopt}, now).after;
    if (!first_failure) first_failure = now;
  }
  ASSERT_EQ(j.status, JobStatus::kDeadletter);
  EXPECT_EQ(*j.deadlettered_at - *first_failure, 7s + 3 * kJitter);
}

TEST(ApplyTest, IsPureTheInputJobIsUntouched) {
  const Job j = JobIn(JobStatus::kProcessing);
  const Job copy = j;
  const Change c = ApplyOk(j, FailBy());
  EXPECT_EQ(j, copy);
  EXPECT_EQ(c.before, copy);
  EXPECT_NE(c.after, copy);
}

}  // namespace
}  // namespace redrive
