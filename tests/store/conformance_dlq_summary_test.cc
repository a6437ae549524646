// Conformance: the DLQ grouped by failure class (GET /jobs/dlq/summary) and
// the error_prefix filter shared by the DLQ listing, redrive and purge.
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Job Dead(const std::string& id, const std::string& queue, DeadReason reason, Instant at,
         std::optional<std::string> error) {
  Job job = AsDead(MakeJob(id, queue), reason, at);
  job.last_error = std::move(error);
  return job;
}

const std::string kTimeout = "gateway timeout after 30s";
// Two long errors that differ only after the 200th character: one group.
const std::string kLongHead = std::string(kDeadLetterErrorChars, 'x');

// payments: 3 timeouts (one of them a lease expiry), 1 invalid card, 2 long
// errors; emails: 1 timeout; plus live jobs that never count.
std::vector<Job> FailureClasses() {
  Job tagged = Dead("p-timeout-1", "payments", DeadReason::kMaxRetriesExceeded, T(10), kTimeout);
  tagged.tags["region"] = "eu";
  Job pending = MakeJob("p-pending", "payments");
  pending.last_error = kTimeout;
  return {
      tagged,
      Dead("p-timeout-2", "payments", DeadReason::kMaxRetriesExceeded, T(40), kTimeout),
      Dead("p-timeout-3", "payments", DeadReason::kMaxRetriesExceeded, T(20),
           kTimeout + " (retry)"),
      Dead("p-card", "payments", DeadReason::kNonRetryable, T(15), "invalid card"),
      Dead("p-long-1", "payments", DeadReason::kNonRetryable, T(5), kLongHead + "-one"),
      Dead("p-long-2", "payments", DeadReason::kNonRetryable, T(6), kLongHead + "-two"),
      Dead("e-timeout", "emails", DeadReason::kMaxRetriesExceeded, T(30), kTimeout),
      Dead("e-expired", "emails", DeadReason::kExpired, T(35), std::nullopt),
      pending,
      AsCompleted(MakeJob("p-done", "payments"), T(1)),
  };
}

std::vector<DeadLetterGroup> Summarize(ReadTx& tx, const JobFilter& f) {
  auto groups = tx.SummarizeDeadLetters(f);
  EXPECT_TRUE(groups.ok()) << groups.status().ToString();
  return groups.ok() ? *groups : std::vector<DeadLetterGroup>{};
}

DeadLetterGroup Group(std::string queue, DeadReason reason, std::optional<std::string> error,
                      long long count, Instant oldest, Instant newest) {
  return DeadLetterGroup{std::move(queue), reason, std::move(error), count, oldest, newest};
}

TEST_P(StoreConformanceTest, DeadLetterSummaryGroupsLargestFirst) {
  Insert(FailureClasses());
  auto tx = BeginRead();
  JobFilter all;
  // Ties on count: queue_name, dead_reason, then error (NULL first).
  EXPECT_THAT(
      Summarize(*tx, all),
      ElementsAre(Group("payments", DeadReason::kMaxRetriesExceeded, kTimeout, 2, T(10), T(40)),
                  Group("payments", DeadReason::kNonRetryable, kLongHead, 2, T(5), T(6)),
                  Group("emails", DeadReason::kExpired, std::nullopt, 1, T(35), T(35)),
                  Group("emails", DeadReason::kMaxRetriesExceeded, kTimeout, 1, T(30), T(30)),
                  Group("payments", DeadReason::kMaxRetriesExceeded, kTimeout + " (retry)", 1,
                        T(20), T(20)),
                  Group("payments", DeadReason::kNonRetryable, "invalid card", 1, T(15), T(15))));
  JobFilter two;
  two.limit = 2;
  EXPECT_EQ(Summarize(*tx, two).size(), 2u);
}

TEST_P(StoreConformanceTest, DeadLetterSummaryFilters) {
  Insert(FailureClasses());
  auto tx = BeginRead();
  JobFilter f;
  f.queue_name = "emails";
  EXPECT_EQ(Summarize(*tx, f).size(), 2u);
  f = {};
  f.dead_reason = DeadReason::kNonRetryable;
  auto by_reason = Summarize(*tx, f);
  ASSERT_EQ(by_reason.size(), 2u);
  EXPECT_EQ(by_reason[0].error, kLongHead);
  f = {};
  f.tag = "region=eu";
  EXPECT_THAT(Summarize(*tx, f), ElementsAre(Group("payments", DeadReason::kMaxRetriesExceeded,
                                                   kTimeout, 1, T(10), T(10))));
  f = {};
  f.error_prefix = "gateway timeout";
  auto by_prefix = Summarize(*tx, f);
  ASSERT_EQ(by_prefix.size(), 3u);
  EXPECT_EQ(by_prefix[0].count, 2);
  f.queue_name = "nowhere";
  EXPECT_THAT(Summarize(*tx, f), IsEmpty());
}

TEST_P(StoreConformanceTest, ErrorPrefixIsAnExactCaseSensitivePrefix) {
  Insert(FailureClasses());
  Insert({Dead("p-wild", "payments", DeadReason::kNonRetryable, T(50), "100% _done_"),
          Dead("p-upper", "payments", DeadReason::kNonRetryable, T(51), "GATEWAY TIMEOUT")});
  auto tx = BeginRead();
  JobFilter f;
  f.error_prefix = "gateway timeout after 30s";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)),
              ElementsAre("p-timeout-2", "e-timeout", "p-timeout-3", "p-timeout-1"));
  f.queue_name = "payments";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)),
              ElementsAre("p-timeout-2", "p-timeout-3", "p-timeout-1"));
  f = {};
  f.error_prefix = "gateway timeout after 30s (retry)";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), ElementsAre("p-timeout-3"));
  // LIKE wildcards are plain characters here.
  f.error_prefix = "100% _";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), ElementsAre("p-wild"));
  f.error_prefix = "1%";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), IsEmpty());
  f.error_prefix = "_";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), IsEmpty());
  f.error_prefix = "GATEWAY";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), ElementsAre("p-upper"));
  // A prefix longer than the error does not match it.
  f.error_prefix = "invalid card!";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), IsEmpty());
  // Past the 200 characters a summary shows, the prefix still tells them apart.
  f.error_prefix = kLongHead + "-two";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), ElementsAre("p-long-2"));
}

TEST_P(StoreConformanceTest, ErrorPrefixSelectsOneClassForRedriveAndPurge) {
  Insert(FailureClasses());
  auto tx = BeginWrite();
  DeadLetterSelection sel;
  sel.error_prefix = "gateway timeout";
  EXPECT_THAT(Ids(*tx->SelectDeadLetters(sel)),
              ElementsAre("p-timeout-1", "p-timeout-3", "e-timeout", "p-timeout-2"));
  sel.queue_name = "payments";
  sel.dead_before = T(40);
  EXPECT_THAT(Ids(*tx->SelectDeadLetters(sel)), ElementsAre("p-timeout-1", "p-timeout-3"));
  sel = {};
  sel.error_prefix = "invalid";
  EXPECT_THAT(Ids(*tx->SelectDeadLetters(sel)), ElementsAre("p-card"));
}

}  // namespace
}  // namespace redrive::store::testing
