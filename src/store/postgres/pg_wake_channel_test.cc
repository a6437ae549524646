// PgWakeChannel against a real PostgreSQL: wake-ups cross between channels
// (nodes), a channel ignores its own, bursts are coalesced, a NOTIFY in an
// application's transaction arrives only if it commits, and a channel
// reconnects by itself after the server was killed.
#include "store/postgres/pg_wake_channel.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "support/pg_cluster.h"

namespace redrive::store::postgres {
namespace {

using namespace std::chrono_literals;
using redrive::testing::PgCluster;

// What one channel heard.
struct Heard {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, int> wakes;
  int resets = 0;

  std::function<void(const std::string&)> OnWake() {
    return [this](const std::string& q) {
      std::lock_guard<std::mutex> lock(mu);
      ++wakes[q];
      cv.notify_all();
    };
  }
  std::function<void()> OnReset() {
    return [this] {
      std::lock_guard<std::mutex> lock(mu);
      ++resets;
      cv.notify_all();
    };
  }
  bool WaitWake(const std::string& q, std::chrono::milliseconds limit = 10s) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, limit, [&] { return wakes.count(q) > 0; });
  }
  bool WaitResets(int n, std::chrono::milliseconds limit = 20s) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, limit, [&] { return resets >= n; });
  }
  int Count(const std::string& q) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = wakes.find(q);
    return it == wakes.end() ? 0 : it->second;
  }
};

class PgWakeChannelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = pg().CreateUniqueDatabase("wake");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  PgCluster& pg() { return PgCluster::Shared(); }
  std::unique_ptr<PgWakeChannel> Channel(Heard& heard) {
    auto c = std::make_unique<PgWakeChannel>(pg().Url(db_));
    EXPECT_TRUE(c->Start(heard.OnWake(), heard.OnReset()).ok());
    EXPECT_TRUE(heard.WaitResets(1)) << "never connected";
    return c;
  }
  std::string db_;
};

TEST_F(PgWakeChannelTest, OtherNodesHearAPublishTheSenderDoesNot) {
  Heard a_heard, b_heard;
  auto a = Channel(a_heard);
  auto b = Channel(b_heard);
  a->Publish({"emails", "reports"});
  ASSERT_TRUE(b_heard.WaitWake("emails"));
  ASSERT_TRUE(b_heard.WaitWake("reports"));
  // b's own publish reaches a; by then a's own (sent earlier) would have
  // reached a too, had it not been ignored.
  b->Publish({"done"});
  ASSERT_TRUE(a_heard.WaitWake("done"));
  EXPECT_EQ(a_heard.Count("emails"), 0);
  EXPECT_EQ(b_heard.Count("done"), 0);
}

TEST_F(PgWakeChannelTest, ABurstIsCoalesced) {
  Heard a_heard, b_heard;
  auto a = Channel(a_heard);
  auto b = Channel(b_heard);
  for (int i = 0; i < 2000; ++i) a->Publish({"hot"});
  a->Publish({"marker"});
  ASSERT_TRUE(b_heard.WaitWake("marker"));
  EXPECT_GE(b_heard.Count("hot"), 1);
  EXPECT_LT(b_heard.Count("hot"), 200);  // 2000 publishes, far fewer sends
}

TEST_F(PgWakeChannelTest, ANotifyInATransactionArrivesOnlyIfItCommits) {
  Heard heard;
  auto c = Channel(heard);
  ASSERT_TRUE(
      pg().Psql("BEGIN; SELECT pg_notify('redrive_wake', 'app rolled'); ROLLBACK", db_).ok());
  ASSERT_TRUE(
      pg().Psql("BEGIN; SELECT pg_notify('redrive_wake', 'app committed'); COMMIT", db_).ok());
  ASSERT_TRUE(heard.WaitWake("committed"));
  EXPECT_EQ(heard.Count("rolled"), 0);
}

TEST_F(PgWakeChannelTest, ReconnectsAfterTheServerWasKilledAndResets) {
  // Its own cluster: this test kills it.
  auto own = PgCluster::Start();
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  PgCluster& pg = **own;
  Heard a_heard, b_heard;
  WakeChannelOptions fast;
  fast.reconnect_max = 200ms;
  PgWakeChannel a(pg.Url(), fast), b(pg.Url(), fast);
  ASSERT_TRUE(a.Start(a_heard.OnWake(), a_heard.OnReset()).ok());
  ASSERT_TRUE(b.Start(b_heard.OnWake(), b_heard.OnReset()).ok());
  ASSERT_TRUE(a_heard.WaitResets(1) && b_heard.WaitResets(1));

  ASSERT_TRUE(pg.Kill().ok());
  ASSERT_TRUE(pg.Restart().ok());
  // Both noticed, reconnected, LISTENed again and asked for a wake-all.
  ASSERT_TRUE(a_heard.WaitResets(2));
  ASSERT_TRUE(b_heard.WaitResets(2));
  EXPECT_EQ(a.connects(), 2);
  a.Publish({"after"});
  EXPECT_TRUE(b_heard.WaitWake("after"));
}

}  // namespace
}  // namespace redrive::store::postgres
