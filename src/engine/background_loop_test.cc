// The background loop under duty leadership: duty services run only while
// this node leads their duty, per-node services always; a duty gained runs at
// once, a duty lost stops. A fake Leadership stands for the store's; a
// manual clock drives the loop (it asks about a duty every check interval of
// engine time, so the tests move the clock, and wait only for what the loop
// observably did).
#include "engine/background_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "core/clock.h"

namespace redrive::engine {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

class FakeLeadership final : public store::Leadership {
 public:
  Result<bool> Hold(const std::string& duty, Instant) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++asked_[duty];
    return held_[duty];
  }
  void ReleaseAll() override {}
  void Set(const std::string& duty, bool held) {
    std::lock_guard<std::mutex> lock(mu_);
    held_[duty] = held;
  }
  int asked(const std::string& duty) {
    std::lock_guard<std::mutex> lock(mu_);
    return asked_[duty];
  }

 private:
  std::mutex mu_;
  std::map<std::string, bool> held_;
  std::map<std::string, int> asked_;
};

// Counts its passes; has nothing to do for an hour after each.
class CountingService final : public Service {
 public:
  explicit CountingService(const char* duty) : duty_(duty) {}
  const char* name() const override { return duty_ ? duty_ : "per-node"; }
  const char* duty() const override { return duty_; }
  ServiceRun RunOnce(Instant now) override {
    ++runs;
    return {0, false, now + hours(1)};
  }
  std::atomic<int> runs{0};

 private:
  const char* duty_;
};

bool WaitUntil(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::yield();
  }
  return condition();
}

class BackgroundLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    duties_.SetLeadership(&leadership_);
    auto reaper = std::make_unique<CountingService>(duty::kLeaseReaper);
    auto sampler = std::make_unique<CountingService>(nullptr);
    reaper_ = reaper.get();
    sampler_ = sampler.get();
    loop_.Add(std::move(reaper));
    loop_.Add(std::move(sampler));
  }

  ManualClock clock_;
  Waiters waiters_;
  FakeLeadership leadership_;
  Duties duties_{"node-test"};
  BackgroundLoop loop_{clock_, waiters_, duties_, std::chrono::milliseconds(5)};
  CountingService* reaper_ = nullptr;
  CountingService* sampler_ = nullptr;
};

TEST_F(BackgroundLoopTest, RunAllOnceRunsADutyOnlyWhileThisNodeLeadsIt) {
  loop_.RunAllOnce(clock_.Now());
  EXPECT_EQ(reaper_->runs, 0);
  EXPECT_EQ(sampler_->runs, 1);  // per node: runs everywhere
  leadership_.Set(duty::kLeaseReaper, true);
  loop_.RunAllOnce(clock_.Now());
  EXPECT_EQ(reaper_->runs, 1);
  EXPECT_EQ(sampler_->runs, 2);
  EXPECT_EQ(leadership_.asked(duty::kLeaseReaper), 2);  // before every pass
}

TEST_F(BackgroundLoopTest, ADutyGainedRunsAtOnceAndALostOneStops) {
  loop_.Start();
  ASSERT_TRUE(WaitUntil([&] { return sampler_->runs == 1; }));
  EXPECT_EQ(reaper_->runs, 0);

  // Gained: the next check (one check interval of engine time on) runs it.
  leadership_.Set(duty::kLeaseReaper, true);
  clock_.Advance(kLeadershipCheckInterval);
  ASSERT_TRUE(WaitUntil([&] { return reaper_->runs == 1; }));

  // The leader keeps its exact due times: a nudge runs it now, not in an hour.
  loop_.Nudge(clock_.Now());
  ASSERT_TRUE(WaitUntil([&] { return reaper_->runs == 2; }));

  // Lost: once the loop has asked again, its work comes due and a nudge
  // arrives, yet it does not run.
  leadership_.Set(duty::kLeaseReaper, false);
  const int asked = leadership_.asked(duty::kLeaseReaper);
  clock_.Advance(hours(2));
  ASSERT_TRUE(WaitUntil([&] { return leadership_.asked(duty::kLeaseReaper) > asked; }));
  loop_.Nudge(clock_.Now());
  clock_.Advance(kLeadershipCheckInterval);
  ASSERT_TRUE(WaitUntil([&] { return leadership_.asked(duty::kLeaseReaper) > asked + 1; }));
  EXPECT_EQ(reaper_->runs, 2);
  EXPECT_GE(sampler_->runs, 2);  // due after the hour: still runs
  loop_.Stop();
}

TEST_F(BackgroundLoopTest, WithoutALeadershipThisNodeLeadsEveryDuty) {
  duties_.SetLeadership(nullptr);
  loop_.RunAllOnce(clock_.Now());
  EXPECT_EQ(reaper_->runs, 1);
  EXPECT_EQ(leadership_.asked(duty::kLeaseReaper), 0);
}

}  // namespace
}  // namespace redrive::engine
