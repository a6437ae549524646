// Delivery reservations: an attempt records its outcome only while the
// stored delivery still carries its token. Two "dispatchers" here are two
// callers of webhook_ops on one store, as two nodes would be: the first one's
// reservation lapses mid-attempt, the second reserves the delivery again,
// and only the second one's outcome is recorded.
#include "engine/webhooks/webhook_ops.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/random.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine::webhook_ops {
namespace {

using std::chrono::seconds;

const Instant kT0 = InstantFromMicros(1'800'000'000'000'000);

class ReservationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("redrive-reservation-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    auto s = store::SqliteStore::Open((dir_ / "redrive.db").string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    ASSERT_TRUE(store_->Migrate().ok());
    Webhook w;
    w.id = "w";
    w.name = "hook";
    w.url = "http://127.0.0.1:9/";
    w.events = {"job.created"};
    w.secret = "s";
    w.created_at = w.updated_at = kT0;
    WebhookDelivery d;
    d.id = "d";
    d.webhook_id = "w";
    d.event_id = "e";
    d.event = "job.created";
    d.body = "{}";
    d.created_at = d.next_attempt_at = kT0;
    InTx(kT0, [&](store::WriteTx& tx, TxContext&) {
      EXPECT_TRUE(tx.InsertWebhook(w, store::kNoWebhookLimit).ok());
      EXPECT_TRUE(tx.InsertDelivery(d).ok());
    });
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Runs `fn` in one committed write transaction at `now`.
  void InTx(Instant now, const std::function<void(store::WriteTx&, TxContext&)>& fn) {
    auto tx = store_->BeginWrite();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    TxContext ctx{now, random_};
    fn(**tx, ctx);
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  ClaimedDelivery ClaimOne(Instant now) {
    std::vector<ClaimedDelivery> claimed;
    InTx(now, [&](store::WriteTx& tx, TxContext& ctx) {
      auto r = ClaimDue(tx, ctx, 10, policy_);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      claimed = std::move(*r);
    });
    EXPECT_EQ(claimed.size(), 1u);
    return claimed.empty() ? ClaimedDelivery{} : claimed[0];
  }
  Recorded Record(Instant now, const ClaimedDelivery& c, AttemptResult result) {
    Recorded recorded;
    InTx(now, [&](store::WriteTx& tx, TxContext& ctx) {
      auto r = RecordAttempt(tx, ctx, c, result, policy_);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      recorded = *r;
    });
    return recorded;
  }
  WebhookDelivery Stored() {
    auto tx = store_->BeginRead();
    EXPECT_TRUE(tx.ok());
    auto d = (*tx)->GetDelivery("d");
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : WebhookDelivery{};
  }

  static AttemptResult Ok() { return {true, 200, std::nullopt, std::chrono::milliseconds(3)}; }
  static AttemptResult Failed() { return {false, 500, "HTTP 500", std::chrono::milliseconds(3)}; }

  std::filesystem::path dir_;
  std::unique_ptr<store::SqliteStore> store_;
  SystemRandom random_{7};
  DeliveryRetryPolicy policy_;  // attempt_lease 60 s, first retry after 5 s
};

TEST_F(ReservationTest, EachClaimReservesWithAFreshTokenAndRecordingClearsIt) {
  ClaimedDelivery c = ClaimOne(kT0);
  ASSERT_TRUE(c.delivery.reservation);
  EXPECT_EQ(Stored().reservation, c.delivery.reservation);
  EXPECT_EQ(Stored().next_attempt_at, kT0 + policy_.attempt_lease);
  EXPECT_FALSE(Record(kT0 + seconds(1), c, Failed()).superseded);
  EXPECT_EQ(Stored().attempts, 1);
  EXPECT_EQ(Stored().reservation, std::nullopt);
  ClaimedDelivery again = ClaimOne(kT0 + seconds(6));  // the retry
  ASSERT_TRUE(again.delivery.reservation);
  EXPECT_NE(again.delivery.reservation, c.delivery.reservation);
}

TEST_F(ReservationTest, ALateOutcomeOfALapsedReservationIsIgnoredAndTheNewHoldersIsRecorded) {
  ClaimedDelivery first = ClaimOne(kT0);
  // The first sender hangs past its reservation; a second one reserves it.
  ClaimedDelivery second = ClaimOne(kT0 + policy_.attempt_lease);
  ASSERT_NE(first.delivery.reservation, second.delivery.reservation);

  // The first attempt's late failure would schedule a retry over the second
  // one's reservation (and a third POST): it records nothing.
  Recorded late = Record(kT0 + seconds(70), first, Failed());
  EXPECT_TRUE(late.superseded);
  WebhookDelivery d = Stored();
  EXPECT_EQ(d.attempts, 0);
  EXPECT_EQ(d.status, DeliveryStatus::kPending);
  EXPECT_EQ(d.next_attempt_at, kT0 + 2 * policy_.attempt_lease);
  EXPECT_EQ(d.reservation, second.delivery.reservation);
  // Nor may it give the delivery back.
  InTx(kT0 + seconds(70),
       [&](store::WriteTx& tx, TxContext&) { ASSERT_TRUE(Unclaim(tx, first).ok()); });
  EXPECT_EQ(Stored().next_attempt_at, kT0 + 2 * policy_.attempt_lease);

  EXPECT_FALSE(Record(kT0 + seconds(71), second, Ok()).superseded);
  d = Stored();
  EXPECT_EQ(d.status, DeliveryStatus::kDelivered);
  EXPECT_EQ(d.attempts, 1);  // one attempt recorded, once
  EXPECT_EQ(d.delivered_at, kT0 + seconds(71));
  EXPECT_EQ(d.reservation, std::nullopt);
  // A success arriving late from the first attempt changes nothing either.
  Record(kT0 + seconds(72), first, Ok());
  EXPECT_EQ(Stored(), d);
}

TEST_F(ReservationTest, UnclaimGivesBackOnlyItsOwnReservation) {
  ClaimedDelivery c = ClaimOne(kT0);
  InTx(kT0, [&](store::WriteTx& tx, TxContext&) { ASSERT_TRUE(Unclaim(tx, c).ok()); });
  EXPECT_EQ(Stored().next_attempt_at, kT0);
  EXPECT_EQ(Stored().reservation, std::nullopt);
  // Given back, its late outcome is not recorded either.
  EXPECT_TRUE(Record(kT0 + seconds(1), c, Ok()).superseded);
  EXPECT_EQ(Stored().attempts, 0);
}

TEST_F(ReservationTest, ATestDeliveryIsReservedForItsOneAttempt) {
  ClaimedDelivery test;
  InTx(kT0, [&](store::WriteTx& tx, TxContext& ctx) {
    auto r = CreateTestDelivery(tx, ctx, "w", policy_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    test = *r;
  });
  ASSERT_TRUE(test.delivery.reservation);
  auto tx = store_->BeginRead();
  ASSERT_TRUE(tx.ok());
  auto stored = (*tx)->GetDelivery(test.delivery.id);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->reservation, test.delivery.reservation);
}

}  // namespace
}  // namespace redrive::engine::webhook_ops
