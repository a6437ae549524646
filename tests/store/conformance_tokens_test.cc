// Conformance: the token exchange's secret and refresh tokens
// (core/refresh_token.h): one secret however many nodes race to create it,
// refresh tokens used once even by two transactions at once, ended with
// their key, capped per key and pruned.
#include <atomic>
#include <thread>

#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

// Long enough for the stores' CHECK (at least 32 characters).
std::string SecretOf(char c) { return std::string(64, c); }

RefreshToken Token(const std::string& hash, const std::string& key, Instant created,
                   std::chrono::seconds ttl = std::chrono::hours(1)) {
  RefreshToken t;
  t.token_hash = hash;
  t.key_id = key;
  t.created_at = created;
  t.expires_at = created + ttl;
  return t;
}

std::vector<std::string> Hashes(const std::vector<RefreshToken>& tokens) {
  std::vector<std::string> out;
  for (const RefreshToken& t : tokens) out.push_back(t.token_hash);
  return out;
}

std::vector<RefreshToken> List(ReadTx& tx, const std::string& key) {
  auto list = tx.ListRefreshTokens(key);
  EXPECT_TRUE(list.ok()) << list.status().ToString();
  return list.ok() ? *list : std::vector<RefreshToken>();
}

TEST_P(StoreConformanceTest, TokenSecretIsCreatedOnceAndKept) {
  EXPECT_FALSE(BeginRead()->GetTokenSecret()->has_value());
  Write([&](WriteTx& tx) {
    auto secret = tx.EnsureTokenSecret(SecretOf('a'));
    ASSERT_TRUE(secret.ok()) << secret.status().ToString();
    EXPECT_EQ(*secret, SecretOf('a'));
  });
  // Another candidate later changes nothing: the stored one is answered.
  Write([&](WriteTx& tx) { EXPECT_EQ(*tx.EnsureTokenSecret(SecretOf('b')), SecretOf('a')); });
  EXPECT_EQ(*BeginRead()->GetTokenSecret(), SecretOf('a'));
}

// Two nodes creating the secret at once: the second transaction starts
// while the first, which inserted, has not committed. Both end with the
// first's secret (on PostgreSQL the second waits for the first's commit; on
// SQLite its transaction cannot begin before).
TEST_P(StoreConformanceTest, TwoWritersRacingForTheTokenSecretGetOne) {
  auto first = BeginWrite();
  ASSERT_EQ(*first->EnsureTokenSecret(SecretOf('a')), SecretOf('a'));
  std::atomic<bool> started{false};
  Result<std::string> second_answer = Status::Internal("not run");
  std::thread second([&] {
    started = true;
    auto tx = store_->BeginWrite();
    if (!tx.ok()) {
      second_answer = tx.status();
      return;
    }
    second_answer = (*tx)->EnsureTokenSecret(SecretOf('b'));
    if (second_answer.ok()) {
      Status st = (*tx)->Commit();
      if (!st.ok()) second_answer = st;
    }
  });
  while (!started) std::this_thread::yield();
  ASSERT_TRUE(first->Commit().ok());
  first.reset();
  second.join();
  ASSERT_TRUE(second_answer.ok()) << second_answer.status().ToString();
  EXPECT_EQ(*second_answer, SecretOf('a'));
  EXPECT_EQ(*BeginRead()->GetTokenSecret(), SecretOf('a'));
}

TEST_P(StoreConformanceTest, RefreshTokenRoundTripsAndEndsOnce) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertRefreshToken(Token("h1", "key-a", T(0)), 10).ok());
    ASSERT_TRUE(tx.InsertRefreshToken(Token("h2", "key-a", T(1)), 10).ok());
    ASSERT_TRUE(tx.InsertRefreshToken(Token("h3", "key-b", T(0)), 10).ok());
  });
  {
    auto tx = BeginRead();
    std::vector<RefreshToken> a = List(*tx, "key-a");
    ASSERT_EQ(Hashes(a), (std::vector<std::string>{"h1", "h2"}));
    EXPECT_EQ(a[0].key_id, "key-a");
    EXPECT_EQ(a[0].created_at, T(0));
    EXPECT_EQ(a[0].expires_at, T(3600));
    EXPECT_FALSE(a[0].ended_at);
    EXPECT_EQ(a[0].end_reason, "");
    EXPECT_TRUE(List(*tx, "nobody").empty());
  }
  Write([&](WriteTx& tx) {
    auto was = tx.EndRefreshToken("h1", T(10), kRefreshEndRefreshed);
    ASSERT_TRUE(was.ok()) << was.status().ToString();
    ASSERT_TRUE(*was);
    EXPECT_TRUE((*was)->LiveAt(T(10)));  // this call ended it
    // A second end in the same transaction finds it ended.
    was = tx.EndRefreshToken("h1", T(11), kRefreshEndLogout);
    ASSERT_TRUE(was.ok() && *was);
    EXPECT_FALSE((*was)->LiveAt(T(11)));
    EXPECT_EQ((*was)->ended_at, T(10));
    EXPECT_EQ((*was)->end_reason, kRefreshEndRefreshed);
    // Unknown: unset. Expired: answered, not ended.
    was = tx.EndRefreshToken("nope", T(11), kRefreshEndLogout);
    ASSERT_TRUE(was.ok());
    EXPECT_FALSE(*was);
    was = tx.EndRefreshToken("h3", T(3600), kRefreshEndLogout);
    ASSERT_TRUE(was.ok() && *was);
    EXPECT_FALSE((*was)->LiveAt(T(3600)));
    EXPECT_FALSE((*was)->ended_at);
  });
  auto tx = BeginRead();
  std::vector<RefreshToken> a = List(*tx, "key-a");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].ended_at, T(10));
  EXPECT_EQ(a[0].end_reason, kRefreshEndRefreshed);
  EXPECT_FALSE(a[1].ended_at);
  EXPECT_FALSE(List(*tx, "key-b")[0].ended_at);
}

// The reusable refresh's read: a token by its hash, live or ended, written
// by nothing.
TEST_P(StoreConformanceTest, GetRefreshTokenReadsOneTokenByItsHash) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertRefreshToken(Token("h1", "key-a", T(0)), 10).ok());
    ASSERT_TRUE(tx.InsertRefreshToken(Token("h2", "key-b", T(5)), 10).ok());
  });
  {
    auto tx = BeginRead();
    auto got = tx->GetRefreshToken("h2");
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(*got);
    EXPECT_EQ((*got)->key_id, "key-b");
    EXPECT_EQ((*got)->created_at, T(5));
    EXPECT_EQ((*got)->expires_at, T(3605));
    EXPECT_FALSE((*got)->ended_at);
    auto none = tx->GetRefreshToken("nope");
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(*none);
  }
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.EndRefreshToken("h1", T(10), kRefreshEndLogout).ok()); });
  auto ended = BeginRead()->GetRefreshToken("h1");
  ASSERT_TRUE(ended.ok() && *ended);
  EXPECT_EQ((*ended)->ended_at, T(10));
  EXPECT_EQ((*ended)->end_reason, kRefreshEndLogout);
}

// Two consumers of one refresh token at once: the first has ended it but
// not committed when the second tries. Exactly one of them gets it live.
TEST_P(StoreConformanceTest, RefreshTokenIsUsedOnceByTwoConcurrentTransactions) {
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertRefreshToken(Token("h", "k", T(0)), 10).ok()); });
  auto first = BeginWrite();
  auto mine = first->EndRefreshToken("h", T(5), kRefreshEndRefreshed);
  ASSERT_TRUE(mine.ok() && *mine) << mine.status().ToString();
  EXPECT_TRUE((*mine)->LiveAt(T(5)));
  std::atomic<bool> started{false};
  Result<std::optional<RefreshToken>> theirs = Status::Internal("not run");
  std::thread second([&] {
    started = true;
    auto tx = store_->BeginWrite();
    if (!tx.ok()) {
      theirs = tx.status();
      return;
    }
    theirs = (*tx)->EndRefreshToken("h", T(6), kRefreshEndRefreshed);
    if (theirs.ok()) {
      Status st = (*tx)->Commit();
      if (!st.ok()) theirs = st;
    }
  });
  while (!started) std::this_thread::yield();
  ASSERT_TRUE(first->Commit().ok());
  first.reset();
  second.join();
  ASSERT_TRUE(theirs.ok()) << theirs.status().ToString();
  ASSERT_TRUE(*theirs);
  EXPECT_FALSE((*theirs)->LiveAt(T(6)));
  EXPECT_EQ((*theirs)->ended_at, T(5));
  auto list = BeginRead()->ListRefreshTokens("k");
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].ended_at, T(5));  // the second end wrote nothing
}

TEST_P(StoreConformanceTest, EndingAKeysRefreshTokensLeavesOthersAndEndedOnes) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertRefreshToken(Token("a1", "a", T(0)), 10).ok());
    ASSERT_TRUE(tx.InsertRefreshToken(Token("a2", "a", T(1)), 10).ok());
    ASSERT_TRUE(tx.InsertRefreshToken(Token("a3", "a", T(2), std::chrono::seconds(5)), 10).ok());
    ASSERT_TRUE(tx.InsertRefreshToken(Token("b1", "b", T(0)), 10).ok());
    ASSERT_TRUE(tx.EndRefreshToken("a1", T(3), kRefreshEndRefreshed).ok());
  });
  Write([&](WriteTx& tx) {
    auto n = tx.EndRefreshTokensOfKey("a", T(10), kRefreshEndKeyRevoked);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 1);  // a2: a1 had ended, a3 had expired
  });
  auto tx = BeginRead();
  std::vector<RefreshToken> a = List(*tx, "a");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].end_reason, kRefreshEndRefreshed);
  EXPECT_EQ(a[1].end_reason, kRefreshEndKeyRevoked);
  EXPECT_EQ(a[1].ended_at, T(10));
  EXPECT_FALSE(a[2].ended_at);
  EXPECT_FALSE(List(*tx, "b")[0].ended_at);
}

TEST_P(StoreConformanceTest, IssuingBeyondTheCapEndsTheKeysOldestLiveTokens) {
  Write([&](WriteTx& tx) {
    for (int i = 0; i < 3; ++i) {
      auto n = tx.InsertRefreshToken(Token("t" + std::to_string(i), "k", T(i)), 3);
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      EXPECT_EQ(*n, 0);
    }
    ASSERT_TRUE(tx.InsertRefreshToken(Token("other", "o", T(0)), 3).ok());
  });
  Write([&](WriteTx& tx) {
    auto n = tx.InsertRefreshToken(Token("t3", "k", T(10)), 3);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 1);  // t0, the oldest
    n = tx.InsertRefreshToken(Token("t4", "k", T(11)), 2);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 2);  // t1 and t2: two live left, t3 and t4
  });
  auto tx = BeginRead();
  std::vector<RefreshToken> k = List(*tx, "k");
  ASSERT_EQ(Hashes(k), (std::vector<std::string>{"t0", "t1", "t2", "t3", "t4"}));
  EXPECT_EQ(k[0].end_reason, kRefreshEndEvicted);
  EXPECT_EQ(k[0].ended_at, T(10));
  EXPECT_EQ(k[1].end_reason, kRefreshEndEvicted);
  EXPECT_EQ(k[2].end_reason, kRefreshEndEvicted);
  EXPECT_FALSE(k[3].ended_at);
  EXPECT_FALSE(k[4].ended_at);
  EXPECT_FALSE(List(*tx, "o")[0].ended_at);  // another key's are not counted
}

TEST_P(StoreConformanceTest, OldRefreshTokensArePrunedEarliestFirstInBatches) {
  Write([&](WriteTx& tx) {
    // Usable until: ended at 5, expired at 20, ended at 30, live until 3600.
    ASSERT_TRUE(tx.InsertRefreshToken(Token("ended5", "k", T(0)), 10).ok());
    ASSERT_TRUE(
        tx.InsertRefreshToken(Token("expired20", "k", T(0), std::chrono::seconds(20)), 10).ok());
    ASSERT_TRUE(tx.InsertRefreshToken(Token("ended30", "k", T(0)), 10).ok());
    ASSERT_TRUE(tx.InsertRefreshToken(Token("live", "k", T(0)), 10).ok());
    ASSERT_TRUE(tx.EndRefreshToken("ended5", T(5), kRefreshEndLogout).ok());
    ASSERT_TRUE(tx.EndRefreshToken("ended30", T(30), kRefreshEndRefreshed).ok());
  });
  Write([&](WriteTx& tx) {
    auto n = tx.DeleteOldRefreshTokens(T(100), 2);  // bounded: the two earliest
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 2);
  });
  EXPECT_EQ(Hashes(*BeginRead()->ListRefreshTokens("k")),
            (std::vector<std::string>{"ended30", "live"}));
  Write([&](WriteTx& tx) {
    EXPECT_EQ(*tx.DeleteOldRefreshTokens(T(30), 10), 0);  // strictly before
    EXPECT_EQ(*tx.DeleteOldRefreshTokens(T(31), 10), 1);
  });
  EXPECT_EQ(Hashes(*BeginRead()->ListRefreshTokens("k")), (std::vector<std::string>{"live"}));
}

}  // namespace
}  // namespace redrive::store::testing
