// Waiters on their own, driven step by step on the calling thread: the
// interleavings a concurrent executor makes possible, made deterministic.
#include "engine/waiters.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace redrive::engine {
namespace {

using std::chrono::seconds;

class WaitersTest : public ::testing::Test {
 protected:
  // A parked claim's resumes are recorded here: "retry" or "timeout".
  Waiters::Resume Record(const std::string& name) {
    return
        [this, name](bool timed_out) { log.push_back(name + (timed_out ? ":timeout" : ":retry")); };
  }
  Waiters::Park ParkFor(uint64_t seen) { return {seen, t0 + seconds(30), std::nullopt}; }

  Waiters waiters;
  const Instant t0 = Instant{} + seconds(1000);
  std::vector<std::string> log;
};

// The missed wake-up: the claim reads the queue's sequence and runs its
// transaction (finds nothing); meanwhile another transaction commits a job of
// that queue and its wake-up finds nobody parked; then the claim parks.
// Without the sequence it would sleep to its deadline with a job waiting.
TEST_F(WaitersTest, AWakeUpBetweenAnEmptyClaimAndItsParkingMakesItRetryAtOnce) {
  const uint64_t seen = waiters.Sequence("q");  // the claim, before its transaction
  waiters.Wake("q", 1);                         // the other commit: nobody is parked
  EXPECT_EQ(waiters.Add("q", ParkFor(seen), Record("claim")), Waiters::Parked::kWokenMeanwhile);
  EXPECT_EQ(waiters.size(), 0u);  // not parked: the claim runs again now
  EXPECT_TRUE(log.empty());
}

TEST_F(WaitersTest, WithoutAWakeUpMeanwhileTheClaimParksAndTheNextWakeUpResumesIt) {
  const uint64_t seen = waiters.Sequence("q");
  waiters.Wake("other", 1);  // another queue's wake-up changes nothing here
  ASSERT_EQ(waiters.Add("q", ParkFor(seen), Record("claim")), Waiters::Parked::kYes);
  EXPECT_EQ(waiters.size(), 1u);
  waiters.Wake("q", 1);
  EXPECT_EQ(log, std::vector<std::string>{"claim:retry"});
  EXPECT_EQ(waiters.size(), 0u);
}

TEST_F(WaitersTest, WakeEveryoneResumesEveryQueueAndMovesEverySequence) {
  ASSERT_EQ(waiters.Add("a", ParkFor(waiters.Sequence("a")), Record("a")), Waiters::Parked::kYes);
  ASSERT_EQ(waiters.Add("b", ParkFor(waiters.Sequence("b")), Record("b")), Waiters::Parked::kYes);
  const uint64_t seen_c = waiters.Sequence("c");  // a claim of c, mid-transaction
  waiters.WakeEveryone();
  EXPECT_EQ(log, (std::vector<std::string>{"a:retry", "b:retry"}));
  EXPECT_EQ(waiters.Add("c", ParkFor(seen_c), Record("c")), Waiters::Parked::kWokenMeanwhile);
}

TEST_F(WaitersTest, ARepollTimeResumesTheClaimBeforeItsDeadline) {
  Waiters::Park park{waiters.Sequence("q"), t0 + seconds(30), t0 + seconds(5)};
  ASSERT_EQ(waiters.Add("q", park, Record("claim")), Waiters::Parked::kYes);
  EXPECT_EQ(waiters.ExpireDue(t0 + seconds(4)), t0 + seconds(5));  // the next thing due
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(waiters.ExpireDue(t0 + seconds(5)), std::nullopt);
  EXPECT_EQ(log, std::vector<std::string>{"claim:retry"});
}

TEST_F(WaitersTest, TheDeadlineEndsTheWaitAndCloseRefusesNewWaiters) {
  ASSERT_EQ(waiters.Add("q", ParkFor(waiters.Sequence("q")), Record("claim")),
            Waiters::Parked::kYes);
  EXPECT_EQ(waiters.ExpireDue(t0 + seconds(29)), t0 + seconds(30));
  waiters.ExpireDue(t0 + seconds(30));
  EXPECT_EQ(log, std::vector<std::string>{"claim:timeout"});
  waiters.Close();
  EXPECT_EQ(waiters.Add("q", ParkFor(waiters.Sequence("q")), Record("late")),
            Waiters::Parked::kClosed);
}

// A claim whose caller left (its connection closed) must not take the
// wake-up meant for a live one (the job would be leased to nobody), nor wait
// out its deadline parked: it is answered as timed out when the caller
// leaves, with no wake-up or expiry needed.
TEST_F(WaitersTest, AWaiterWhoseCallerLeavesIsAnsweredAtOnceAndTakesNoWakeUp) {
  std::stop_source gone;
  Waiters::Park abandoned = ParkFor(waiters.Sequence("q"));
  abandoned.abandoned = gone.get_token();
  ASSERT_EQ(waiters.Add("q", abandoned, Record("gone")), Waiters::Parked::kYes);
  ASSERT_EQ(waiters.Add("q", ParkFor(waiters.Sequence("q")), Record("live")),
            Waiters::Parked::kYes);
  EXPECT_EQ(waiters.CountByQueue().at("q"), 2u);
  gone.request_stop();
  EXPECT_EQ(log, std::vector<std::string>{"gone:timeout"});
  EXPECT_EQ(waiters.CountByQueue().at("q"), 1u);
  waiters.Wake("q", 1);  // one job committed: one wake-up, for the live one
  EXPECT_EQ(log, (std::vector<std::string>{"gone:timeout", "live:retry"}));
  EXPECT_EQ(waiters.size(), 0u);
}

TEST_F(WaitersTest, ACallerThatLeftBeforeParkingIsNotParked) {
  std::stop_source gone;
  gone.request_stop();
  Waiters::Park park = ParkFor(waiters.Sequence("q"));
  park.abandoned = gone.get_token();
  EXPECT_EQ(waiters.Add("q", park, Record("gone")), Waiters::Parked::kAbandoned);
  EXPECT_EQ(waiters.size(), 0u);
  EXPECT_TRUE(log.empty());  // the caller answers it itself
}

// Callers leaving on one thread while another wakes and expires waiters:
// each waiter is resumed exactly once, and no thread waits for the other
// forever (a leave's callback takes the lock that a waker holds while it
// drops waiters).
TEST_F(WaitersTest, LeavingWhileOthersWakeAndExpireResumesEachWaiterOnce) {
  constexpr int kWaiters = 2000;
  std::vector<std::atomic<int>> resumed(kWaiters);
  std::vector<std::stop_source> callers(kWaiters);
  std::atomic<bool> parked_all{false};
  std::thread waker([&] {
    while (!parked_all.load() || waiters.size() > 0) {
      waiters.Wake("q", 3);
      waiters.ExpireDue(t0 + seconds(31));  // past every deadline
    }
  });
  for (int i = 0; i < kWaiters; ++i) {
    Waiters::Park park = ParkFor(waiters.Sequence("q"));
    park.abandoned = callers[i].get_token();
    auto resume = [&resumed, i](bool) { ++resumed[i]; };
    const Waiters::Parked parked = waiters.Add("q", park, resume);
    if (parked != Waiters::Parked::kYes) ++resumed[i];  // answered by its caller
    callers[i].request_stop();
  }
  parked_all = true;
  waker.join();
  for (int i = 0; i < kWaiters; ++i) EXPECT_EQ(resumed[i].load(), 1) << i;
}

// A claim that found the queue empty leaves its look; the claims after it
// may park with it (KnownEmpty) until the queue is woken or the look is old.
TEST_F(WaitersTest, AnEmptyLookStandsUntilTheQueueIsWokenOrItIsOld) {
  const uint64_t seen = waiters.Sequence("q");
  waiters.LookedEmpty("q", seen, t0);
  EXPECT_EQ(waiters.KnownEmpty("q", t0 - seconds(1)), seen);
  EXPECT_EQ(waiters.KnownEmpty("q", t0), std::nullopt);  // not after `after`: too old
  EXPECT_EQ(waiters.KnownEmpty("other", t0 - seconds(1)), std::nullopt);
  // A claim parked with it is resumed by the next wake-up like any other.
  ASSERT_EQ(waiters.Add("q", ParkFor(*waiters.KnownEmpty("q", t0 - seconds(1))), Record("c")),
            Waiters::Parked::kYes);
  EXPECT_EQ(waiters.Wake("q", 1), 1);
  EXPECT_EQ(log, std::vector<std::string>{"c:retry"});
  EXPECT_EQ(waiters.KnownEmpty("q", t0 - seconds(1)), std::nullopt);  // the wake-up ended it
}

// A look taken before a wake-up it did not see is stale already: not kept.
TEST_F(WaitersTest, AnEmptyLookFromBeforeAWakeUpIsNotKept) {
  const uint64_t seen = waiters.Sequence("q");
  waiters.Wake("q", 1);  // a commit the claim may not have seen
  waiters.LookedEmpty("q", seen, t0);
  EXPECT_EQ(waiters.KnownEmpty("q", t0 - seconds(1)), std::nullopt);
  waiters.LookedEmpty("q", waiters.Sequence("q"), t0);
  EXPECT_EQ(waiters.KnownEmpty("q", t0 - seconds(1)), waiters.Sequence("q"));
  waiters.WakeEveryone();  // a reconnected channel: anything may have changed
  EXPECT_EQ(waiters.KnownEmpty("q", t0 - seconds(1)), std::nullopt);
}

// A hand-over wakes claims to take the new jobs in the transaction that
// offers them, and what they leave is woken again after its commit: the look
// still stands after the hand-over, and falls with the wake-up after.
TEST_F(WaitersTest, AHandOverKeepsAnEmptyLookAndTheWakeUpAfterItsCommitEndsIt) {
  waiters.LookedEmpty("q", waiters.Sequence("q"), t0);
  ASSERT_EQ(waiters.Add("q", ParkFor(waiters.Sequence("q")), Record("c")), Waiters::Parked::kYes);
  EXPECT_EQ(waiters.HandOver("q", 1), 1);
  EXPECT_EQ(log, std::vector<std::string>{"c:retry"});
  EXPECT_EQ(waiters.KnownEmpty("q", t0 - seconds(1)), waiters.Sequence("q"));
  waiters.Wake("q", 1);  // the commit left a job claimable
  EXPECT_EQ(waiters.KnownEmpty("q", t0 - seconds(1)), std::nullopt);
  // A hand-over does not revive a look that a wake-up before it ended.
  const uint64_t old = waiters.Sequence("q");
  waiters.LookedEmpty("q", old, t0);
  waiters.Wake("q", 1);
  waiters.HandOver("q", 1);
  EXPECT_EQ(waiters.KnownEmpty("q", t0 - seconds(1)), std::nullopt);
}

// Looks are a cache of bounded size: a claim on every queue name a client
// can make up keeps a few thousand at most (forgetting one costs a
// transaction, never a missed job).
TEST_F(WaitersTest, EmptyLooksAreBounded) {
  for (int i = 0; i < 10000; ++i) {
    const std::string q = "q" + std::to_string(i);
    waiters.LookedEmpty(q, waiters.Sequence(q), t0);
  }
  int kept = 0;
  for (int i = 0; i < 10000; ++i) {
    kept += waiters.KnownEmpty("q" + std::to_string(i), t0 - seconds(1)).has_value();
  }
  EXPECT_GT(kept, 0);
  EXPECT_LE(kept, 4096);
  EXPECT_TRUE(waiters.KnownEmpty("q9999", t0 - seconds(1)).has_value());  // the newest
}

}  // namespace
}  // namespace redrive::engine
