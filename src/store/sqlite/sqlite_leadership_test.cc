// SQLite's duty leadership: leases in duty_leases that lapse after the ttl,
// taken over by `now` (the caller's clock), shared by every store opened on
// the same file — as by processes sharing it. What every store does is in
// tests/store/conformance_leadership_test.cc.
#include "store/sqlite/sqlite_leadership.h"

#include <gtest/gtest.h>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const Instant kT0 = InstantFromMicros(1'800'000'000'000'000);

class SqliteLeadershipTest : public ::testing::Test {
 protected:
  // A store on the shared file; each one stands for a process.
  std::unique_ptr<SqliteStore> OpenStore(milliseconds ttl = milliseconds(5000)) {
    SqliteOptions options;
    options.duty_lease_ttl = ttl;
    auto store = SqliteStore::Open(dir_.File("shared.db"), options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return nullptr;
    EXPECT_TRUE((*store)->Migrate().ok());
    return std::move(*store);
  }
  static std::unique_ptr<Leadership> Lead(SqliteStore& store, const std::string& node) {
    auto l = store.NewLeadership(node);
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    return l.ok() ? std::move(*l) : nullptr;
  }
  static bool Holds(Leadership& l, const std::string& duty, Instant now) {
    auto held = l.Hold(duty, now);
    EXPECT_TRUE(held.ok()) << held.status().ToString();
    return held.ok() && *held;
  }

  sqlite::TempDirForTest dir_;
};

TEST_F(SqliteLeadershipTest, AHolderThatStopsRenewingIsReplacedWhenItsLeaseLapses) {
  auto store_a = OpenStore();
  auto store_b = OpenStore();
  ASSERT_TRUE(store_a && store_b);
  auto a = Lead(*store_a, "node-a");
  auto b = Lead(*store_b, "node-b");
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(Holds(*a, "lease-reaper", kT0));
  // node-a says nothing more (it died). Until kT0 + ttl the duty is its.
  EXPECT_FALSE(Holds(*b, "lease-reaper", kT0 + seconds(4)));
  EXPECT_FALSE(Holds(*b, "lease-reaper", kT0 + milliseconds(4999)));
  EXPECT_TRUE(Holds(*b, "lease-reaper", kT0 + seconds(5)));
  // node-a comes back: the duty is node-b's now, until node-b lapses.
  EXPECT_FALSE(Holds(*a, "lease-reaper", kT0 + seconds(6)));
  EXPECT_TRUE(Holds(*b, "lease-reaper", kT0 + seconds(6)));
}

TEST_F(SqliteLeadershipTest, RenewingMovesTheLeaseOnAndTheTtlIsAnOption) {
  auto store = OpenStore(milliseconds(3000));
  ASSERT_TRUE(store);
  auto a = Lead(*store, "node-a");
  auto b = Lead(*store, "node-b");
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(Holds(*a, "scheduler", kT0));
  // Asked again within a third of the ttl: answered from memory.
  ASSERT_TRUE(Holds(*a, "scheduler", kT0 + milliseconds(900)));
  EXPECT_TRUE(Holds(*b, "scheduler", kT0 + seconds(3)));  // not renewed: lapsed at 3 s
  // b renews at 4 s (past a third of the ttl): the lease now ends at 7 s.
  ASSERT_TRUE(Holds(*b, "scheduler", kT0 + seconds(4)));
  EXPECT_FALSE(Holds(*a, "scheduler", kT0 + milliseconds(6999)));
  EXPECT_TRUE(Holds(*a, "scheduler", kT0 + seconds(7)));
}

TEST_F(SqliteLeadershipTest, TheRenewalThatFallsDueRenewsTheOtherDutiesInUse) {
  auto store = OpenStore(milliseconds(3000));
  ASSERT_TRUE(store);
  auto a = Lead(*store, "node-a");
  auto b = Lead(*store, "node-b");
  ASSERT_TRUE(a && b);
  for (const char* duty : {"scheduler", "retention", "audit-retention"}) {
    ASSERT_TRUE(Holds(*a, duty, kT0)) << duty;
  }
  ASSERT_TRUE(Holds(*a, "retention", kT0 + milliseconds(500)));  // from memory
  // The renewals fall due at 1 s (a third of the ttl). The scheduler's
  // renews the retention lease too, asked for at 0.5 s: both now end at
  // 4.1 s. The audit retention, not asked for since 0 s, still ends at 3 s.
  ASSERT_TRUE(Holds(*a, "scheduler", kT0 + milliseconds(1100)));
  EXPECT_TRUE(Holds(*b, "audit-retention", kT0 + seconds(3)));
  EXPECT_FALSE(Holds(*b, "retention", kT0 + seconds(4)));
  EXPECT_FALSE(Holds(*b, "scheduler", kT0 + seconds(4)));
  EXPECT_TRUE(Holds(*b, "retention", kT0 + milliseconds(4100)));
  // node-a asks again after its leases lapsed: node-b's now.
  EXPECT_FALSE(Holds(*a, "retention", kT0 + milliseconds(4200)));
  EXPECT_FALSE(Holds(*a, "audit-retention", kT0 + milliseconds(4200)));
}

TEST_F(SqliteLeadershipTest, ALeaseLeftByADeadProcessLapsesOrIsResumedByItsNode) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  {
    // What a process killed while leading leaves behind: its row.
    sqlite::ConnectionOptions options;
    options.writer = true;
    auto conn = sqlite::Connection::Open(dir_.File("shared.db"), options);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    auto insert = (*conn)->Prepare(
        "INSERT INTO duty_leases (duty, node_id, expires_at) VALUES ('retention', 'node-a', ?1)");
    ASSERT_TRUE(insert.ok());
    insert->Bind(1, kT0 + seconds(5));
    ASSERT_TRUE(insert->Run().ok());
  }
  auto b = Lead(*store, "node-b");
  auto restarted = Lead(*store, "node-a");
  ASSERT_TRUE(b && restarted);
  EXPECT_FALSE(Holds(*b, "retention", kT0 + seconds(1)));
  // The same node id started again resumes its own lease at once...
  EXPECT_TRUE(Holds(*restarted, "retention", kT0 + seconds(1)));
  restarted.reset();
  // ...and one that is gone for good is replaced when it lapses (here: released).
  EXPECT_TRUE(Holds(*b, "retention", kT0 + seconds(1)));
}

TEST_F(SqliteLeadershipTest, AnEmptyNodeIdIsRefused) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  EXPECT_FALSE(store->NewLeadership("").ok());
}

}  // namespace
}  // namespace redrive::store
