// The outcome table is total and consistent: one row per Outcome, in order,
// and what each row says agrees with the vocabulary it names (history types,
// webhook events) and with the rules the metrics and webhooks rely on.
#include "core/outcome.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/webhook.h"
#include "core/webhook_event.h"

namespace redrive {
namespace {

size_t Index(Outcome o) { return static_cast<size_t>(o); }

bool Counts(Outcome o, const std::string& event) {
  for (const CountedEvent& c : Describe(o).counts) {
    if (c.event != nullptr && c.event == event) return true;
  }
  return false;
}

std::vector<std::string> Webhooks(Outcome o) {
  std::vector<std::string> names;
  for (const EmittedWebhook& w : Describe(o).webhooks) {
    if (w.event != nullptr) names.push_back(w.event);
  }
  return names;
}

TEST(OutcomeTableTest, HasOneRowPerOutcomeInOrder) {
  ASSERT_EQ(OutcomeTable().size(), kOutcomeCount);
  for (size_t i = 0; i < kOutcomeCount; ++i) {
    const Outcome o = static_cast<Outcome>(i);
    EXPECT_EQ(Index(OutcomeTable()[i].outcome), i) << "row " << i;
    EXPECT_EQ(&Describe(o), &OutcomeTable()[i]);
  }
}

TEST(OutcomeTableTest, NamesAreUniqueAndEveryRowIsWellFormed) {
  std::set<std::string> names;
  for (const OutcomeInfo& row : OutcomeTable()) {
    ASSERT_NE(row.name, nullptr);
    EXPECT_TRUE(names.insert(row.name).second) << "duplicate name " << row.name;
    // Empty slots come last, so a loop may stop at the first.
    bool ended = false;
    for (const CountedEvent& c : row.counts) {
      if (c.event == nullptr) ended = true;
      EXPECT_FALSE(ended && c.event != nullptr) << row.name << ": a count after an empty slot";
      EXPECT_FALSE(c.event == nullptr && c.by_dead_reason) << row.name;
    }
    ended = false;
    for (const EmittedWebhook& w : row.webhooks) {
      if (w.event == nullptr) ended = true;
      EXPECT_FALSE(ended && w.event != nullptr) << row.name << ": a webhook after an empty slot";
      if (w.event != nullptr) {
        EXPECT_TRUE(IsWebhookEvent(w.event)) << w.event;
      }
    }
  }
}

TEST(OutcomeTableTest, HistoryTypesAreTheOnesTheApiDocuments) {
  const std::set<std::string> known = {
      "created",       "processing",      "completed",   "retry_scheduled",
      "lease_expired", "deadlettered",    "retried",     "cancelled",
      "released",      "payload_updated", "quarantined", "quarantine_released",
      "snoozed",       "unblocked",       "blocked",     "moved"};
  std::set<std::string> used;
  for (const OutcomeInfo& row : OutcomeTable()) {
    if (row.history_type == nullptr) continue;
    EXPECT_TRUE(known.count(row.history_type)) << row.history_type;
    used.insert(row.history_type);
  }
  EXPECT_EQ(used, known);
  // No history: the changes that end no attempt and move no lifecycle step.
  for (Outcome o : {Outcome::kPromoted, Outcome::kLeaseExtended, Outcome::kPriorityChanged}) {
    EXPECT_EQ(Describe(o).history_type, nullptr) << Describe(o).name;
    EXPECT_FALSE(Describe(o).counts[0].event) << Describe(o).name;
    EXPECT_FALSE(Describe(o).webhooks[0].event) << Describe(o).name;
  }
}

TEST(OutcomeTableTest, CountsAreTheEngineJobEvents) {
  const std::set<std::string> known = {
      "enqueued",      "claimed",      "completed", "failed",      "retry_scheduled",
      "lease_expired", "deadlettered", "redriven",  "quarantined", "quarantine_released",
      "snoozed",       "unblocked",    "blocked",   "moved"};
  std::set<std::string> used;
  for (const OutcomeInfo& row : OutcomeTable()) {
    for (const CountedEvent& c : row.counts) {
      if (c.event == nullptr) continue;
      EXPECT_TRUE(known.count(c.event)) << c.event;
      // Exactly the dead-letter count is labelled with the dead reason.
      EXPECT_EQ(c.by_dead_reason, std::string(c.event) == "deadlettered") << row.name;
      used.insert(c.event);
    }
  }
  EXPECT_EQ(used, known);
}

// The rules the metric counting and the webhook events rely on, stated by
// the table rather than re-derived from history strings and statuses.
TEST(OutcomeTableTest, FailedAttemptsCountAndEmitAFailure) {
  for (Outcome o : {Outcome::kFailedRetryScheduled, Outcome::kLeaseLostRetryScheduled}) {
    EXPECT_TRUE(Counts(o, "failed")) << Describe(o).name;
    EXPECT_TRUE(Counts(o, "retry_scheduled")) << Describe(o).name;
    EXPECT_THAT(Webhooks(o), ::testing::ElementsAre("job.failed"));
    EXPECT_EQ(Describe(o).webhooks[0].will_retry, true);
  }
  for (Outcome o : {Outcome::kFailedDeadlettered, Outcome::kLeaseLostDeadlettered}) {
    EXPECT_TRUE(Counts(o, "failed")) << Describe(o).name;
    EXPECT_TRUE(Counts(o, "deadlettered")) << Describe(o).name;
    EXPECT_FALSE(Counts(o, "retry_scheduled")) << Describe(o).name;
    EXPECT_THAT(Webhooks(o), ::testing::ElementsAre("job.failed", "job.deadlettered"));
    EXPECT_EQ(Describe(o).webhooks[0].will_retry, false);
  }
}

TEST(OutcomeTableTest, AQuarantineIsAFailedAttemptAnnouncedApartFromTheDlq) {
  const Outcome o = Outcome::kLeaseLostQuarantined;
  EXPECT_TRUE(Counts(o, "failed"));
  EXPECT_TRUE(Counts(o, "quarantined"));
  EXPECT_FALSE(Counts(o, "deadlettered"));
  EXPECT_FALSE(Counts(o, "retry_scheduled"));
  EXPECT_THAT(Webhooks(o), ::testing::ElementsAre("job.failed", "job.quarantined"));
  EXPECT_EQ(Describe(o).webhooks[0].will_retry, false);
  // A snooze and a release fail nothing and announce nothing.
  for (Outcome quiet : {Outcome::kSnoozed, Outcome::kReleasedFromQuarantine}) {
    EXPECT_FALSE(Counts(quiet, "failed")) << Describe(quiet).name;
    EXPECT_TRUE(Webhooks(quiet).empty()) << Describe(quiet).name;
  }
}

TEST(OutcomeTableTest, ADeadlineDeadLetterFailedNoAttempt) {
  EXPECT_TRUE(Counts(Outcome::kDeadlineDeadlettered, "deadlettered"));
  EXPECT_FALSE(Counts(Outcome::kDeadlineDeadlettered, "failed"));
  EXPECT_THAT(Webhooks(Outcome::kDeadlineDeadlettered), ::testing::ElementsAre("job.deadlettered"));
}

TEST(OutcomeTableTest, OnlyLostLeasesCountALeaseExpiry) {
  for (const OutcomeInfo& row : OutcomeTable()) {
    const bool lease_lost = row.outcome == Outcome::kLeaseLostRetryScheduled ||
                            row.outcome == Outcome::kLeaseLostDeadlettered ||
                            row.outcome == Outcome::kLeaseLostQuarantined;
    EXPECT_EQ(Counts(row.outcome, "lease_expired"), lease_lost) << row.name;
  }
}

TEST(OutcomeTableTest, OnlyARedriveFromTheDlqCountsRedrivenBothEmitRetriedWithSource) {
  EXPECT_TRUE(Counts(Outcome::kRedriven, "redriven"));
  EXPECT_FALSE(Counts(Outcome::kRetriedFromCancelled, "redriven"));
  for (Outcome o : {Outcome::kRedriven, Outcome::kRetriedFromCancelled}) {
    EXPECT_STREQ(Describe(o).history_type, "retried");
    EXPECT_THAT(Webhooks(o), ::testing::ElementsAre("job.retried"));
    EXPECT_TRUE(Describe(o).webhooks[0].retry_source);
  }
  for (const OutcomeInfo& row : OutcomeTable()) {
    for (const EmittedWebhook& w : row.webhooks) {
      if (w.retry_source) {
        EXPECT_STREQ(w.event, "job.retried") << row.name;
      }
      if (w.will_retry) {
        EXPECT_STREQ(w.event, "job.failed") << row.name;
      }
    }
  }
}

TEST(OutcomeTableTest, EveryJobWebhookEventHasAnOutcome) {
  std::set<std::string> emitted;
  for (const OutcomeInfo& row : OutcomeTable()) {
    for (const std::string& name : Webhooks(row.outcome)) emitted.insert(name);
  }
  emitted.insert(std::string(QueueWebhookEventName(QueueOutcome::kPaused)));
  emitted.insert(std::string(QueueWebhookEventName(QueueOutcome::kResumed)));
  emitted.insert(std::string(WorkerWebhookEventName(WorkerOutcome::kRegistered)));
  emitted.insert(std::string(WorkerWebhookEventName(WorkerOutcome::kDeregistered)));
  emitted.insert("schedule.triggered");  // ScheduleTriggeredEvent (webhook_event.h)
  emitted.insert(std::string(WorkflowWebhookEventName(WorkflowOutcome::kCompleted)));
  emitted.insert(std::string(WorkflowWebhookEventName(WorkflowOutcome::kFailed)));
  emitted.insert(kAutoredriveWebhookEvent);  // AutoredriveWebhookEvent (webhook_event.h)
  std::set<std::string> subscribable;
  for (std::string_view name : kWebhookEventNames) subscribable.insert(std::string(name));
  EXPECT_EQ(emitted, subscribable);
}

}  // namespace
}  // namespace redrive
