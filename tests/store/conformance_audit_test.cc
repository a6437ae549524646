// Conformance: the operator audit log (entries with their targets, paged
// newest first, filtered, pruned by age) and the Idempotency-Key records of
// operator routes (reserved once, completed with the answer, replaced once
// expired, pruned).
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

AuditEntry Entry(const std::string& id, Instant at, const std::string& actor,
                 const std::string& action, std::vector<std::string> targets) {
  AuditEntry e;
  e.id = id;
  e.at = at;
  e.actor = actor;
  e.role = "admin";
  e.client_address = "192.0.2.7";
  e.method = "POST";
  e.route = "/api/v1/jobs/{id}/retry";
  e.action = action;
  e.targets = std::move(targets);
  e.status = 200;
  e.request_id = "req-" + id;
  return e;
}

std::vector<std::string> EntryIds(const std::vector<AuditEntry>& entries) {
  std::vector<std::string> out;
  for (const AuditEntry& e : entries) out.push_back(e.id);
  return out;
}

std::vector<AuditEntry> List(ReadTx& tx, const AuditFilter& f) {
  auto r = tx.ListAudit(f);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<AuditEntry>{};
}

TEST_P(StoreConformanceTest, AuditEntriesReadBackWhole) {
  AuditEntry full = Entry("a1", T(10), "oncall", "dlq.retry", {"job:j2", "job:j1", "job:j3"});
  full.selector = R"({"queue_name":"payments"})";
  full.count = 3;
  full.reason = "gateway fixed, INC-4411 — ünïcode";
  AuditEntry bare = Entry("a2", T(11), "local", "queue.resume", {});
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertAuditEntry(full).ok());
    ASSERT_TRUE(tx.InsertAuditEntry(bare).ok());
  });
  auto tx = BeginRead();
  std::vector<AuditEntry> all = List(*tx, AuditFilter{});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], bare);  // newest first
  EXPECT_EQ(all[1], full);  // targets in the order written
}

TEST_P(StoreConformanceTest, AuditFiltersAndPagesNewestFirst) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertAuditEntry(Entry("e1", T(1), "alice", "job.retry", {"job:x"})).ok());
    ASSERT_TRUE(tx.InsertAuditEntry(Entry("e2", T(2), "bob", "job.cancel", {"job:y"})).ok());
    // Two entries of one instant: ordered by id.
    ASSERT_TRUE(
        tx.InsertAuditEntry(Entry("e3", T(3), "alice", "dlq.retry", {"job:x", "job:y"})).ok());
    ASSERT_TRUE(tx.InsertAuditEntry(Entry("e4", T(3), "alice", "queue.pause", {"queue:q"})).ok());
  });
  auto tx = BeginRead();
  EXPECT_THAT(EntryIds(List(*tx, AuditFilter{})), ElementsAre("e4", "e3", "e2", "e1"));

  AuditFilter by_actor;
  by_actor.actor = "alice";
  EXPECT_THAT(EntryIds(List(*tx, by_actor)), ElementsAre("e4", "e3", "e1"));
  AuditFilter by_action;
  by_action.action = "job.cancel";
  EXPECT_THAT(EntryIds(List(*tx, by_action)), ElementsAre("e2"));
  AuditFilter by_target;
  by_target.target = "job:x";
  EXPECT_THAT(EntryIds(List(*tx, by_target)), ElementsAre("e3", "e1"));
  AuditFilter window;
  window.since = T(2);
  window.until = T(3);
  EXPECT_THAT(EntryIds(List(*tx, window)), ElementsAre("e2"));

  // Pages of two, each after the previous page's last entry.
  AuditFilter page;
  page.limit = 2;
  std::vector<AuditEntry> first = List(*tx, page);
  EXPECT_THAT(EntryIds(first), ElementsAre("e4", "e3"));
  page.after = AuditCursor{first.back().at, first.back().id};
  std::vector<AuditEntry> second = List(*tx, page);
  EXPECT_THAT(EntryIds(second), ElementsAre("e2", "e1"));
  page.after = AuditCursor{second.back().at, second.back().id};
  EXPECT_THAT(List(*tx, page), IsEmpty());
}

TEST_P(StoreConformanceTest, DeleteAuditBeforePrunesOldEntriesAndTheirTargets) {
  Write([&](WriteTx& tx) {
    for (int i = 0; i < 5; ++i) {
      const std::string id = "p" + std::to_string(i);
      ASSERT_TRUE(tx.InsertAuditEntry(Entry(id, T(i), "alice", "job.retry", {"job:" + id})).ok());
    }
  });
  Write([&](WriteTx& tx) {
    auto n = tx.DeleteAuditBefore(T(3), 2);  // bounded: the two oldest
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 2);
    n = tx.DeleteAuditBefore(T(3), 100);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 1);
  });
  auto tx = BeginRead();
  EXPECT_THAT(EntryIds(List(*tx, AuditFilter{})), ElementsAre("p4", "p3"));
  AuditFilter gone;
  gone.target = "job:p0";
  EXPECT_THAT(List(*tx, gone), IsEmpty());
}

IdempotencyRecord Record(const std::string& key, const std::string& fingerprint, Instant at) {
  IdempotencyRecord r;
  r.scope = "key:abc";
  r.key = key;
  r.fingerprint = fingerprint;
  r.created_at = at;
  r.expires_at = at + std::chrono::hours(24);
  return r;
}

std::optional<IdempotencyRecord> GetRecord(ReadTx& tx, const std::string& scope,
                                           const std::string& key) {
  auto r = tx.GetIdempotencyRecord(scope, key);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::nullopt;
}

TEST_P(StoreConformanceTest, IdempotencyKeyIsReservedOnceThenCompleted) {
  IdempotencyRecord first = Record("k1", "fp-a", T(0));
  Write([&](WriteTx& tx) {
    auto reserved = tx.ReserveIdempotencyKey(first);
    ASSERT_TRUE(reserved.ok()) << reserved.status().ToString();
    EXPECT_TRUE(*reserved);
    // The same key again, even with another fingerprint: taken.
    reserved = tx.ReserveIdempotencyKey(Record("k1", "fp-b", T(5)));
    ASSERT_TRUE(reserved.ok());
    EXPECT_FALSE(*reserved);
    // Another scope has a key space of its own.
    IdempotencyRecord other = Record("k1", "fp-b", T(5));
    other.scope = "local";
    reserved = tx.ReserveIdempotencyKey(other);
    ASSERT_TRUE(reserved.ok());
    EXPECT_TRUE(*reserved);
  });
  {
    auto tx = BeginRead();
    std::optional<IdempotencyRecord> stored = GetRecord(*tx, "key:abc", "k1");
    ASSERT_TRUE(stored);
    EXPECT_EQ(*stored, first);
    EXPECT_FALSE(stored->completed());
    EXPECT_FALSE(GetRecord(*tx, "key:abc", "nope"));
  }
  IdempotencyRecord done = first;
  done.response_status = 200;
  done.response_content_type = "application/json";
  done.response_headers = {{"Retry-After", "5"}};
  done.response_body = R"({"retried_count":3})";
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.CompleteIdempotencyKey(done).ok());
    IdempotencyRecord wrong = done;
    wrong.fingerprint = "fp-b";
    EXPECT_EQ(tx.CompleteIdempotencyKey(wrong).code(), ErrorCode::kNotFound);
  });
  auto tx = BeginRead();
  std::optional<IdempotencyRecord> stored = GetRecord(*tx, "key:abc", "k1");
  ASSERT_TRUE(stored);
  EXPECT_EQ(*stored, done);
}

TEST_P(StoreConformanceTest, ExpiredIdempotencyKeyIsReplacedAndPruned) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.ReserveIdempotencyKey(Record("old", "fp-a", T(0))).ok());
    ASSERT_TRUE(tx.ReserveIdempotencyKey(Record("young", "fp-a", T(3600))).ok());
  });
  const Instant day_later = T(0) + std::chrono::hours(24);
  Write([&](WriteTx& tx) {
    // At its expiry the key is free again: a new request takes it.
    auto reserved = tx.ReserveIdempotencyKey(Record("old", "fp-new", day_later));
    ASSERT_TRUE(reserved.ok());
    EXPECT_TRUE(*reserved);
  });
  {
    auto tx = BeginRead();
    std::optional<IdempotencyRecord> stored = GetRecord(*tx, "key:abc", "old");
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->fingerprint, "fp-new");
    EXPECT_FALSE(stored->completed());
  }
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.DeleteIdempotencyKey("key:abc", "old").ok());
    ASSERT_TRUE(tx.DeleteIdempotencyKey("key:abc", "never-there").ok());
    auto n = tx.DeleteExpiredIdempotencyKeys(day_later + std::chrono::hours(1), 100);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 1);  // "young"
  });
  auto tx = BeginRead();
  EXPECT_FALSE(GetRecord(*tx, "key:abc", "old"));
  EXPECT_FALSE(GetRecord(*tx, "key:abc", "young"));
}

}  // namespace
}  // namespace redrive::store::testing
