// Conformance: the DLQ grouped by failure class (GET /jobs/dlq/summary), the
// error_prefix and fingerprint filters shared by the DLQ listing, redrive and
// purge, and the fingerprint backfill's reads and writes.
#include <algorithm>

#include "core/error_fingerprint.h"
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Job Dead(const std::string& id, const std::string& queue, DeadReason reason, Instant at,
         std::optional<std::string> error) {
  Job job = AsDead(MakeJob(id, queue), reason, at);
  // As the engine's Apply does when a job dead-letters (stores never compute it).
  if (error) job.error_fingerprint = ErrorFingerprint(*error);
  job.last_error = std::move(error);
  return job;
}

const std::string kTimeout = "gateway timeout after 30s";
// Two long errors that differ only after the 200th character: two classes
// (their fingerprints differ) that show the same 200-character example.
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

// A class of jobs whose errors fingerprint as `error` does, showing `example`.
DeadLetterGroup Group(std::string queue, DeadReason reason, std::optional<std::string> error,
                      long long count, Instant oldest, Instant newest,
                      std::optional<std::string> example = std::nullopt) {
  std::optional<std::string> fingerprint;
  if (error) fingerprint = ErrorFingerprint(*error);
  return DeadLetterGroup{std::move(queue),
                         reason,
                         std::move(fingerprint),
                         std::nullopt,
                         example ? example : error,
                         count,
                         oldest,
                         newest};
}

bool ByFingerprint(const DeadLetterGroup& a, const DeadLetterGroup& b) {
  return a.fingerprint < b.fingerprint;
}

TEST_P(StoreConformanceTest, DeadLetterSummaryGroupsLargestFirst) {
  Insert(FailureClasses());
  auto tx = BeginRead();
  JobFilter all;
  // Ties on count: queue_name, dead_reason, then fingerprint (NULL first).
  std::vector<DeadLetterGroup> expected = {
      Group("payments", DeadReason::kMaxRetriesExceeded, kTimeout, 2, T(10), T(40)),
      Group("emails", DeadReason::kExpired, std::nullopt, 1, T(35), T(35)),
      Group("emails", DeadReason::kMaxRetriesExceeded, kTimeout, 1, T(30), T(30)),
      Group("payments", DeadReason::kMaxRetriesExceeded, kTimeout + " (retry)", 1, T(20), T(20)),
      Group("payments", DeadReason::kNonRetryable, kLongHead + "-one", 1, T(5), T(5), kLongHead),
      Group("payments", DeadReason::kNonRetryable, kLongHead + "-two", 1, T(6), T(6), kLongHead),
      Group("payments", DeadReason::kNonRetryable, "invalid card", 1, T(15), T(15))};
  std::sort(expected.begin() + 4, expected.end(), ByFingerprint);
  EXPECT_EQ(Summarize(*tx, all), expected);
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
  ASSERT_EQ(by_reason.size(), 3u);
  EXPECT_EQ(by_reason[0].count, 1);
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
  f = {};
  f.fingerprint = ErrorFingerprint(kTimeout);
  EXPECT_THAT(
      Summarize(*tx, f),
      ElementsAre(Group("payments", DeadReason::kMaxRetriesExceeded, kTimeout, 2, T(10), T(40)),
                  Group("emails", DeadReason::kMaxRetriesExceeded, kTimeout, 1, T(30), T(30))));
}

// Errors that differ only in their variable parts are one class: its count,
// first and last seen, and its smallest error as the example.
TEST_P(StoreConformanceTest, DeadLetterSummaryGroupsByFingerprint) {
  Insert({Dead("u-30", "api", DeadReason::kMaxRetriesExceeded, T(30), "upstream 504 after 30s"),
          Dead("u-20", "api", DeadReason::kMaxRetriesExceeded, T(10), "upstream 504 after 20s"),
          Dead("u-45", "api", DeadReason::kMaxRetriesExceeded, T(20), "upstream 504 after 45s"),
          Dead("u-502", "api", DeadReason::kMaxRetriesExceeded, T(40), "upstream 502 after 20s")});
  ASSERT_EQ(ErrorFingerprint("upstream 504 after 20s"), ErrorFingerprint("upstream 504 after 30s"));
  auto tx = BeginRead();
  EXPECT_THAT(Summarize(*tx, {}), ElementsAre(Group("api", DeadReason::kMaxRetriesExceeded,
                                                    "upstream 504 after 20s", 3, T(10), T(30)),
                                              Group("api", DeadReason::kMaxRetriesExceeded,
                                                    "upstream 502 after 20s", 1, T(40), T(40))));
}

TEST_P(StoreConformanceTest, FingerprintSelectsOneClassEverywhere) {
  Insert(FailureClasses());
  Insert({Dead("p-timeout-4", "payments", DeadReason::kMaxRetriesExceeded, T(45),
               "gateway timeout after 90s")});
  const std::string fp = ErrorFingerprint(kTimeout);
  {
    auto tx = BeginRead();
    JobFilter f;
    f.fingerprint = fp;
    EXPECT_THAT(Ids(*tx->ListDeadLetters(f)),
                ElementsAre("p-timeout-4", "p-timeout-2", "e-timeout", "p-timeout-1"));
    f.queue_name = "payments";
    EXPECT_THAT(Ids(*tx->ListDeadLetters(f)),
                ElementsAre("p-timeout-4", "p-timeout-2", "p-timeout-1"));
    f.fingerprint = "0000000000000000";
    EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), IsEmpty());
  }
  auto tx = BeginWrite();
  DeadLetterSelection sel;
  sel.fingerprint = fp;
  EXPECT_THAT(Ids(*tx->SelectDeadLetters(sel)),
              ElementsAre("p-timeout-1", "e-timeout", "p-timeout-2", "p-timeout-4"));
  EXPECT_EQ(*tx->CountDeadLetters(sel), 4);
  sel.queue_name = "payments";
  sel.dead_before = T(45);
  EXPECT_THAT(Ids(*tx->SelectDeadLetters(sel)), ElementsAre("p-timeout-1", "p-timeout-2"));
  EXPECT_EQ(*tx->CountDeadLetters(sel), 2);
  // Combined with a prefix, both must hold.
  sel = {};
  sel.fingerprint = fp;
  sel.error_prefix = "gateway timeout after 9";
  EXPECT_THAT(Ids(*tx->SelectDeadLetters(sel)), ElementsAre("p-timeout-4"));
}

// Jobs stored before fingerprints existed: the backfill reads exactly the
// dead and quarantined ones with an error and no fingerprint, and writes a
// fingerprint only to a job still in that state with the same error.
TEST_P(StoreConformanceTest, FingerprintBackfillReadsAndWritesOnlyJobsWithout) {
  Job old_dead = Dead("a-old-dead", "q", DeadReason::kMaxRetriesExceeded, T(1), "boom 1");
  old_dead.error_fingerprint.reset();
  Job old_quarantined = AsDead(MakeJob("b-old-quarantined", "q"), DeadReason::kNone, T(2));
  old_quarantined.status = JobStatus::kQuarantined;
  old_quarantined.dead_reason = DeadReason::kNone;
  old_quarantined.deadlettered_at.reset();
  old_quarantined.last_error = "lease expired";
  Job no_error = Dead("c-no-error", "q", DeadReason::kExpired, T(3), std::nullopt);
  Job pending = MakeJob("d-pending", "q");
  pending.last_error = "boom 2";  // a retry is scheduled: not a class
  Job done = Dead("e-done", "q", DeadReason::kMaxRetriesExceeded, T(4), "boom 3");
  Insert({old_dead, old_quarantined, no_error, pending, done});
  auto tx = BeginWrite();
  auto rows = tx->SelectUnfingerprinted(10);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].job_id, "a-old-dead");
  EXPECT_EQ((*rows)[0].last_error, "boom 1");
  EXPECT_EQ((*rows)[1].job_id, "b-old-quarantined");
  EXPECT_EQ(tx->SelectUnfingerprinted(1)->size(), 1u);
  // A changed error (the job died again meanwhile) is not written.
  std::vector<FingerprintBackfill> stale = {{"a-old-dead", "boom 0", ErrorFingerprint("boom 0")}};
  EXPECT_EQ(*tx->SetErrorFingerprints(stale), 0);
  for (FingerprintBackfill& r : *rows) r.fingerprint = ErrorFingerprint(r.last_error);
  EXPECT_EQ(*tx->SetErrorFingerprints(*rows), 2);
  EXPECT_EQ(*tx->SetErrorFingerprints(*rows), 0);  // already set
  EXPECT_THAT(*tx->SelectUnfingerprinted(10), IsEmpty());
  EXPECT_EQ(tx->GetJob("a-old-dead")->error_fingerprint, ErrorFingerprint("boom 1"));
  EXPECT_EQ(tx->GetJob("b-old-quarantined")->error_fingerprint, ErrorFingerprint("lease expired"));
  EXPECT_EQ(tx->GetJob("d-pending")->error_fingerprint, std::nullopt);
  ASSERT_TRUE(tx->Commit().ok());
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
