// Conformance: stored API keys (core/api_key.h).
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

StoredApiKey MakeKey(const std::string& id, Instant created = T(0)) {
  StoredApiKey k;
  k.id = id;
  k.name = "key " + id;
  k.role = "worker";
  k.queues = {"emails", "reports.daily"};
  k.secret_hash = std::string(64, 'a' + static_cast<char>(id.size() % 6)) + id;
  k.prefix = "rdk_" + id;
  k.created_at = created;
  k.updated_at = created;
  return k;
}

void ExpectSameKey(const StoredApiKey& got, const StoredApiKey& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.role, want.role);
  EXPECT_EQ(got.queues, want.queues);
  EXPECT_EQ(got.secret_hash, want.secret_hash);
  EXPECT_EQ(got.prefix, want.prefix);
  EXPECT_EQ(got.active, want.active);
  EXPECT_EQ(got.created_at, want.created_at);
  EXPECT_EQ(got.updated_at, want.updated_at);
  EXPECT_EQ(got.last_used_at, want.last_used_at);
  EXPECT_EQ(got.expires_at, want.expires_at);
}

TEST_P(StoreConformanceTest, ApiKeyRoundTripsEveryField) {
  StoredApiKey k = MakeKey("k1", T(3));
  k.expires_at = T(100);
  k.last_used_at = T(4);
  StoredApiKey unscoped = MakeKey("k2", T(3));
  unscoped.queues.clear();
  unscoped.role = "admin";
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertApiKey(k).ok());
    ASSERT_TRUE(tx.InsertApiKey(unscoped).ok());
  });
  auto got = BeginRead()->GetApiKey("k1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSameKey(*got, k);
  ExpectSameKey(*BeginRead()->GetApiKey("k2"), unscoped);
  EXPECT_EQ(BeginRead()->GetApiKey("nope").status().code(), ErrorCode::kNotFound);
}

TEST_P(StoreConformanceTest, ApiKeysListOldestFirstAndUpdateKeepsSecretAndUse) {
  StoredApiKey a = MakeKey("a", T(2));
  StoredApiKey b = MakeKey("b", T(1));
  a.last_used_at = T(7);
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertApiKey(a).ok());
    ASSERT_TRUE(tx.InsertApiKey(b).ok());
  });
  auto list = BeginRead()->ListApiKeys();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, "b");
  EXPECT_EQ((*list)[1].id, "a");

  StoredApiKey changed = a;
  changed.name = "renamed";
  changed.role = "viewer";
  changed.queues = {};
  changed.active = false;
  changed.expires_at = T(50);
  changed.updated_at = T(9);
  // Fields Update must not write: the secret, its prefix, creation, use.
  changed.secret_hash = "other";
  changed.prefix = "other";
  changed.created_at = T(99);
  changed.last_used_at = T(98);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateApiKey(changed).ok()); });
  StoredApiKey want = changed;
  want.secret_hash = a.secret_hash;
  want.prefix = a.prefix;
  want.created_at = a.created_at;
  want.last_used_at = a.last_used_at;
  ExpectSameKey(*BeginRead()->GetApiKey("a"), want);
  Write([&](WriteTx& tx) {
    EXPECT_EQ(tx.UpdateApiKey(MakeKey("ghost")).code(), ErrorCode::kNotFound);
  });
}

TEST_P(StoreConformanceTest, ApiKeyUseMovesLastUsedForwardOnly) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertApiKey(MakeKey("a")).ok());
    ASSERT_TRUE(tx.InsertApiKey(MakeKey("b")).ok());
  });
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.RecordApiKeyUse({{"a", T(10)}, {"b", T(5)}, {"ghost", T(5)}}).ok());
  });
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.RecordApiKeyUse({{"a", T(8)}, {"b", T(6)}}).ok()); });
  EXPECT_EQ(BeginRead()->GetApiKey("a")->last_used_at, T(10));
  EXPECT_EQ(BeginRead()->GetApiKey("b")->last_used_at, T(6));
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.RecordApiKeyUse({}).ok()); });
}

TEST_P(StoreConformanceTest, ApiKeysVersionMovesWithWritesNotWithUse) {
  auto version = [&] {
    auto v = BeginRead()->ApiKeysVersion();
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : -1;
  };
  const int64_t v0 = version();
  StoredApiKey k = MakeKey("a");
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertApiKey(k).ok()); });
  const int64_t v1 = version();
  EXPECT_GT(v1, v0);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.RecordApiKeyUse({{"a", T(3)}}).ok()); });
  EXPECT_EQ(version(), v1);
  k.active = false;
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.UpdateApiKey(k).ok());
    // A transaction reads its own write's version.
    auto in_tx = tx.ApiKeysVersion();
    ASSERT_TRUE(in_tx.ok());
    EXPECT_GT(*in_tx, v1);
  });
  EXPECT_GT(version(), v1);
}

}  // namespace
}  // namespace redrive::store::testing
