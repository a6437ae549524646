// The job state machine, table-tested over every (status, event) pair, with
// exact times (a fixed base instant) and fixed jitter (FixedRandom); the
// focused tests of each event are in transition_events_test.cc.
#include "core/transition.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "core/ids_test_util.h"
#include "core/transition_test_util.h"

namespace redrive {
namespace {
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
  const S kAll[] = {S::kPending,    S::kScheduled, S::kProcessing,  S::kCompleted,
                    S::kDeadletter, S::kCancelled, S::kQuarantined, S::kBlocked};
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
        j.crash_count = 1;
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
          j.error_fingerprint = ErrorFingerprint("deadline passed before the job could run");
        },
        ExpectedHistory{"deadlettered", std::nullopt,
                        R"({"error":"deadline passed before the job could run",)"
                        R"("reason":"expired","total_retries":1})"},
        expires_now);
  }

  // 7 Cancel: any non-terminal status (a blocked job too); clears a lease.
  for (S s : kAll) t[{s, 7}] = Refused(kConflict);
  for (S s : {S::kPending, S::kScheduled, S::kProcessing, S::kBlocked}) {
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
          j.error_fingerprint.reset();
          j.dead_reason = DeadReason::kNone;
          j.deadlettered_at.reset();
          j.completed_at.reset();
        },
        ExpectedHistory{"retried", std::nullopt, R"({"source":"dlq_retry","budget":"reset"})"});
  }

  // 9 UpdatePayload: only in the DLQ or in quarantine (a repair before a release).
  for (S s : kAll) t[{s, 9}] = Refused(kConflict);
  for (S s : {S::kDeadletter, S::kQuarantined}) {
    Expectation e = Accepted([](Job& j) { j.payload = R"({"to":"b@example.com"})"; },
                             ExpectedHistory{"payload_updated", std::nullopt, "{}"});
    e.payload_changed = true;
    t[{s, 9}] = std::move(e);
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

  // 12 ReleaseQuarantine: only quarantined -> pending, due now, crash_count
  // reset, retry_count reset (the default budget).
  for (S s : kAll) t[{s, 12}] = Refused(kConflict);
  t[{S::kQuarantined, 12}] = Accepted(
      [](Job& j) {
        j.status = S::kPending;
        j.scheduled_at = kT0;
        j.crash_count = 0;
        j.retry_count = 0;
        j.last_error.reset();
        j.error_fingerprint.reset();
        j.completed_at.reset();
      },
      ExpectedHistory{"quarantine_released", std::nullopt,
                      R"({"crash_count":3,"budget":"reset","retry_count":0,"max_retries":3})"});

  // 13 Snooze: only the holder of a processing job, like Fail; no retry spent.
  for (S s : kAll) t[{s, 13}] = Refused(s == S::kCompleted ? kConflict : kLease);
  t[{S::kProcessing, 13}] = Accepted(
      [](Job& j) {
        j.status = S::kScheduled;
        j.scheduled_at = kT0 + 90s;
        j.snooze_count = 1;
        ClearLease(j);
      },
      ExpectedHistory{"snoozed", "w1",
                      R"({"delay_ms":90000,"next_run":"2026-11-29T12:01:30.000Z",)"
                      R"("snooze_count":1})"});

  // 14 Unblock: only blocked -> pending (its scheduled_at passed: due now).
  for (S s : kAll) t[{s, 14}] = Refused(kConflict);
  t[{S::kBlocked, 14}] = Accepted(
      [](Job& j) {
        j.status = S::kPending;
        j.scheduled_at = kT0;
      },
      ExpectedHistory{"unblocked", std::nullopt, R"({"cause":"dep-1"})"});

  // 15 Block: only pending or scheduled -> blocked (dependencies added).
  for (S s : kAll) t[{s, 15}] = Refused(kConflict);
  for (S s : {S::kPending, S::kScheduled}) {
    t[{s, 15}] = Accepted([](Job& j) { j.status = S::kBlocked; },
                          ExpectedHistory{"blocked", std::nullopt, "{}"});
  }

  // 16 Move: a waiting, dead or quarantined job changes queue, nothing else
  // (transition_move_test.cc has the refusals' reasons).
  for (S s : kAll) t[{s, 16}] = Refused(kConflict);
  for (S s : {S::kPending, S::kScheduled, S::kDeadletter, S::kQuarantined}) {
    t[{s, 16}] = Accepted(
        [](Job& j) { j.queue_name = "emails-slow"; },
        ExpectedHistory{"moved", std::nullopt,
                        R"({"from_queue":"emails","to_queue":"emails-slow","by":"ops@alice"})"});
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
  // A dead job finished when it entered the DLQ: stores may read either
  // time for its retention (store.h, SelectRetentionExpired).
  if (c.after.status == JobStatus::kDeadletter) {
    EXPECT_EQ(c.after.completed_at, c.after.deadlettered_at);
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
      {{S::kQuarantined, 9}, O::kPayloadUpdated},
      {{S::kProcessing, 10}, O::kReleased},
      {{S::kPending, 11}, O::kPriorityChanged},
      {{S::kScheduled, 11}, O::kPriorityChanged},
      {{S::kProcessing, 11}, O::kPriorityChanged},
      {{S::kDeadletter, 11}, O::kPriorityChanged},
      {{S::kQuarantined, 11}, O::kPriorityChanged},
      {{S::kQuarantined, 12}, O::kReleasedFromQuarantine},
      {{S::kProcessing, 13}, O::kSnoozed},
      {{S::kBlocked, 7}, O::kCancelled},
      {{S::kBlocked, 11}, O::kPriorityChanged},
      {{S::kBlocked, 14}, O::kUnblocked},
      {{S::kPending, 15}, O::kBlocked},
      {{S::kScheduled, 15}, O::kBlocked},
      {{S::kPending, 16}, O::kMoved},
      {{S::kScheduled, 16}, O::kMoved},
      {{S::kDeadletter, 16}, O::kMoved},
      {{S::kQuarantined, 16}, O::kMoved},
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
  const char* const kWant[] = {"claim",
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
  for (size_t k = 0; k < kEventKinds; ++k) EXPECT_STREQ(EventName(EventOfKind(k)), kWant[k]);
}

// ---------------------------------------------------------------------------
// Claim

}  // namespace
}  // namespace redrive
