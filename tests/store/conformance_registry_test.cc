// Conformance: queues, workers, and transaction behaviour (visibility,
// concurrency, health).
#include <atomic>
#include <thread>

#include "core/limits.h"
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_P(StoreConformanceTest, EnsureQueueCreatesDefaultsOnce) {
  QueueConfig created;
  Write([&](WriteTx& tx) {
    auto q = tx.EnsureQueue("emails", T(1), kNoQueueLimit);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    created = *q;
  });
  QueueConfig expected;
  expected.queue_name = "emails";
  expected.created_at = T(1);
  expected.updated_at = T(1);
  EXPECT_EQ(created, expected);
  Write([&](WriteTx& tx) {
    auto again = tx.EnsureQueue("emails", T(2), kNoQueueLimit);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, expected);  // not recreated
  });
  auto tx = BeginRead();
  EXPECT_EQ(*tx->GetQueue("emails"), expected);
}

TEST_P(StoreConformanceTest, EnsureQueueRefusesANewQueuePastTheLimit) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.EnsureQueue("a", T(1), 2).ok());
    ASSERT_TRUE(tx.EnsureQueue("b", T(1), 2).ok());
  });
  Write([&](WriteTx& tx) {
    auto third = tx.EnsureQueue("c", T(2), 2);
    EXPECT_EQ(third.status().code(), ErrorCode::kConflict);
    EXPECT_EQ(third.status().message(), QueueLimitMessage("c", 2));
    // A queue that exists is no new queue, at the limit or past it.
    EXPECT_TRUE(tx.EnsureQueue("a", T(2), 2).ok());
    EXPECT_TRUE(tx.EnsureQueue("b", T(2), 1).ok());
  });
  EXPECT_FALSE(BeginRead()->GetQueue("c")->has_value());
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.DeleteQueue("b", /*delete_jobs=*/true).ok()); });
  Write([&](WriteTx& tx) { EXPECT_TRUE(tx.EnsureQueue("c", T(3), 2).ok()); });
  EXPECT_EQ(BeginRead()->ListQueues()->size(), 2u);
}

TEST_P(StoreConformanceTest, PutQueueReplacesEveryField) {
  QueueConfig q;
  q.queue_name = "billing";
  q.max_retries = 9;
  q.default_timeout = 77;
  q.enabled = false;
  q.paused = true;
  q.paused_reason = "maintenance";
  q.backoff = BackoffPolicy{std::chrono::milliseconds(0), std::chrono::milliseconds(5),
                            std::chrono::milliseconds(60000)};
  q.retention.completed = std::nullopt;
  q.retention.deadletter = std::chrono::seconds(3600);
  q.retention.cancelled = std::chrono::seconds(1);
  q.created_at = T(3);
  q.updated_at = T(4);
  q.redrive_until = T(5) + std::chrono::microseconds(7);
  q.crash_limit = 0;
  q.max_snoozes = 7;
  Write([&](WriteTx& tx) {
    auto created = tx.EnsureQueue("billing", T(1), kNoQueueLimit);
    ASSERT_TRUE(created.ok());
    EXPECT_EQ(created->crash_limit, QueueConfig{}.crash_limit);  // the defaults
    EXPECT_EQ(created->max_snoozes, QueueConfig{}.max_snoozes);
    ASSERT_TRUE(tx.PutQueue(q).ok());
  });
  EXPECT_EQ(*BeginRead()->GetQueue("billing"), q);
  Write([&](WriteTx& tx) { EXPECT_EQ(*tx.LockQueue("billing"), q); });
  q.paused = false;
  q.paused_reason.reset();
  q.redrive_until.reset();
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.PutQueue(q).ok()); });
  EXPECT_EQ(*BeginRead()->GetQueue("billing"), q);
}

TEST_P(StoreConformanceTest, ListQueuesByName) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.EnsureQueue("zeta", T(1), kNoQueueLimit).ok());
    ASSERT_TRUE(tx.EnsureQueue("alpha", T(2), kNoQueueLimit).ok());
  });
  auto queues = BeginRead()->ListQueues();
  ASSERT_TRUE(queues.ok());
  std::vector<std::string> names;
  for (const QueueConfig& q : *queues) names.push_back(q.queue_name);
  EXPECT_THAT(names, ElementsAre("alpha", "zeta"));
  EXPECT_EQ(*BeginRead()->GetQueue("missing"), std::nullopt);
}

TEST_P(StoreConformanceTest, DeleteQueueWithAndWithoutJobs) {
  Insert({MakeJob("a1", "a"), MakeJob("b1", "b")});
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.EnsureQueue("a", T(0), kNoQueueLimit).ok());
    ASSERT_TRUE(tx.EnsureQueue("b", T(0), kNoQueueLimit).ok());
    EXPECT_EQ(tx.DeleteQueue("missing", true).code(), ErrorCode::kNotFound);
    EXPECT_TRUE(tx.DeleteQueue("a", false).ok());
    EXPECT_TRUE(tx.DeleteQueue("b", true).ok());
  });
  auto tx = BeginRead();
  EXPECT_EQ(*tx->GetQueue("a"), std::nullopt);
  EXPECT_EQ(*tx->GetQueue("b"), std::nullopt);
  EXPECT_TRUE(tx->GetJob("a1").ok());
  EXPECT_EQ(tx->GetJob("b1").status().code(), ErrorCode::kNotFound);
  EXPECT_THAT(*tx->GetHistory("b1"), IsEmpty());
  EXPECT_EQ(tx->GetHistory("a1")->size(), 1u);  // a kept job keeps its history
}

WorkerInfo MakeWorker(const std::string& id, Instant registered) {
  WorkerInfo w;
  w.id = id;
  w.queue_name = "emails";
  w.hostname = "host-" + id;
  w.worker_type = "python";
  w.max_concurrency = 4;
  w.metadata_json = R"({"pid":42})";
  w.version = "1.2.3";
  w.status = "active";
  w.current_jobs = 2;
  w.registered_at = registered;
  w.last_heartbeat_at = registered + std::chrono::seconds(5);
  return w;
}

TEST_P(StoreConformanceTest, WorkersListPages) {
  // Registered at T(3), T(1), T(2), T(1): pages follow (registered_at, id).
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.PutWorker(MakeWorker("c", T(3))).ok());
    ASSERT_TRUE(tx.PutWorker(MakeWorker("b", T(1))).ok());
    ASSERT_TRUE(tx.PutWorker(MakeWorker("d", T(2))).ok());
    ASSERT_TRUE(tx.PutWorker(MakeWorker("a", T(1))).ok());
  });
  auto ids = [&](int limit, int offset) {
    std::vector<std::string> out;
    auto page = BeginRead()->ListWorkers(limit, offset);
    EXPECT_TRUE(page.ok());
    for (const WorkerInfo& w : *page) out.push_back(w.id);
    return out;
  };
  EXPECT_THAT(ids(2, 0), ElementsAre("a", "b"));
  EXPECT_THAT(ids(2, 2), ElementsAre("d", "c"));
  EXPECT_THAT(ids(10, 3), ElementsAre("c"));
  EXPECT_THAT(ids(10, 4), ElementsAre());
}

TEST_P(StoreConformanceTest, DeleteOfflineWorkersKeepsRecentAndLeaseHolders) {
  // MakeWorker's last heartbeat is 5 s after registration.
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.PutWorker(MakeWorker("oldest", T(-5))).ok());  // heartbeat T(0)
    ASSERT_TRUE(tx.PutWorker(MakeWorker("old", T(0))).ok());      // T(5)
    ASSERT_TRUE(tx.PutWorker(MakeWorker("holder", T(-5))).ok());  // T(0), holds a lease
    ASSERT_TRUE(tx.PutWorker(MakeWorker("edge", T(95))).ok());    // T(100): not before
  });
  Insert({AsProcessing(MakeJob("j1"), "holder", "l1", T(500))});
  auto remaining = [&] {
    std::vector<std::string> out;
    auto all = BeginRead()->ListWorkers(100, 0);
    EXPECT_TRUE(all.ok());
    for (const WorkerInfo& w : *all) out.push_back(w.id);
    return out;
  };
  long long deleted = -1;
  Write([&](WriteTx& tx) { deleted = *tx.DeleteOfflineWorkers(T(100), 1); });
  EXPECT_EQ(deleted, 1);  // the oldest heartbeat first
  EXPECT_THAT(remaining(), ElementsAre("holder", "old", "edge"));
  Write([&](WriteTx& tx) { deleted = *tx.DeleteOfflineWorkers(T(100), 10); });
  EXPECT_EQ(deleted, 1);
  EXPECT_THAT(remaining(), ElementsAre("holder", "edge"));
  Write([&](WriteTx& tx) { deleted = *tx.DeleteOfflineWorkers(T(101), 10); });
  EXPECT_EQ(deleted, 1);
  EXPECT_THAT(remaining(), ElementsAre("holder"));
}

TEST_P(StoreConformanceTest, WorkersPutGetList) {
  WorkerInfo w1 = MakeWorker("w1", T(2));
  WorkerInfo w2 = MakeWorker("w2", T(1));
  w2.worker_type.reset();
  w2.version.reset();
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.PutWorker(w1).ok());
    ASSERT_TRUE(tx.PutWorker(w2).ok());
  });
  auto tx = BeginRead();
  EXPECT_EQ(*tx->GetWorker("w1"), w1);
  EXPECT_EQ(*tx->GetWorker("nobody"), std::nullopt);
  auto all = tx->ListWorkers(100, 0);
  ASSERT_TRUE(all.ok());
  EXPECT_THAT(*all, ElementsAre(w2, w1));  // oldest registration first
  tx.reset();

  w1.status = "draining";
  w1.current_jobs = 0;
  w1.deregistered_at = T(9);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.PutWorker(w1).ok()); });
  EXPECT_EQ(*BeginRead()->GetWorker("w1"), w1);
}

TEST_P(StoreConformanceTest, ReaderSeesCommittedDataWhileAWriteIsOpen) {
  Insert({MakeJob("committed")});
  auto writer = BeginWrite();
  Job job = MakeJob("uncommitted");
  ASSERT_TRUE(writer->InsertJob(job, CreatedEntry(job)).ok());
  // The reader neither waits for the open write nor sees it.
  auto reader = BeginRead();
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->GetJob("committed").ok());
  EXPECT_EQ(reader->GetJob("uncommitted").status().code(), ErrorCode::kNotFound);
  reader.reset();
  ASSERT_TRUE(writer->Commit().ok());
  writer.reset();
  EXPECT_TRUE(BeginRead()->GetJob("uncommitted").ok());
}

TEST_P(StoreConformanceTest, ConcurrentReadersAndOneWriter) {
  constexpr int kJobs = 50;
  std::vector<std::thread> readers;
  std::atomic<bool> failed{false};
  std::thread writer([&] {
    for (int i = 0; i < kJobs; ++i) {
      auto tx = store_->BeginWrite();
      if (!tx.ok()) {
        failed = true;
        return;
      }
      Job job = MakeJob("job-" + std::to_string(i));
      if (!(*tx)->InsertJob(job, CreatedEntry(job)).ok() || !(*tx)->Commit().ok()) failed = true;
    }
  });
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&] {
      long long last = 0;
      while (last < kJobs && !failed) {
        auto tx = store_->BeginRead();
        if (!tx.ok()) {
          failed = true;
          return;
        }
        auto counts = (*tx)->CountJobs(std::nullopt);
        if (!counts.ok() || counts->total() < last) {
          failed = true;
          return;
        }
        last = counts->total();  // never goes back: commits are atomic and ordered
      }
    });
  }
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_FALSE(failed);
  EXPECT_EQ(BeginRead()->CountJobs(std::nullopt)->total(), kJobs);
}

TEST_P(StoreConformanceTest, MigrateIsIdempotentAndPingWorks) {
  EXPECT_TRUE(store_->Migrate().ok());
  EXPECT_TRUE(store_->Ping().ok());
  EXPECT_FALSE(store_->Describe().empty());
}

}  // namespace
}  // namespace redrive::store::testing
