// Readiness follows the disk, through the whole API on a SQLite store whose
// disk fails (FaultVfs): /health/ready answers 503 with the reason while
// commits fail and 200 again once one succeeds; after a failed fsync every
// write answers 503 and readiness stays 503 until a restart (fail-stop).
#include <gtest/gtest.h>

#include <string>

#include "api/api_test_util.h"
#include "store/sqlite/fault_vfs_test_util.h"

namespace redrive::api {
namespace {

using store::sqlite::testing::FaultFile;
using store::sqlite::testing::FaultOp;
using store::sqlite::testing::FaultVfs;
using testing::ApiTest;
using testing::Reply;

class ApiHealthFaultsTest : public ApiTest {
 protected:
  void SetUp() override {
    faults_.Clear();
    store_options_.vfs = FaultVfs::kName;
    ApiTest::SetUp();
  }
  void TearDown() override {
    ApiTest::TearDown();
    faults_.Clear();
  }
  Reply EnqueueReply() { return Post("/api/v1/jobs", R"({"queue_name":"q","payload":{"n":1}})"); }
  long long TotalJobs() {
    Reply r = Get("/api/v1/jobs/stats?queue_name=q");
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.status == 200 ? r["total"].as_int64() : -1;
  }
  static std::string Message(const Reply& r) { return r.raw.body; }

  FaultVfs& faults_ = FaultVfs::Install();
};

TEST_F(ApiHealthFaultsTest, FullDiskMakesTheNodeUnreadyUntilACommitSucceeds) {
  ASSERT_EQ(Get("/health/ready").status, 200);
  faults_.Inject(FaultOp::kWrite, FaultFile::kAny, SQLITE_FULL);
  for (int i = 0; i < 3; ++i) {
    Reply r = EnqueueReply();
    EXPECT_EQ(r.status, 503) << r.raw.body;
    EXPECT_EQ(r.Code(), "SERVICE_UNAVAILABLE");
  }
  Reply ready = Get("/health/ready");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.Code(), "SERVICE_UNAVAILABLE");
  EXPECT_NE(Message(ready).find("full"), std::string::npos) << Message(ready);
  EXPECT_EQ(Get("/health/live").status, 200) << "alive, only not ready";
  Reply health = Get("/health");  // Spooled's shape: answers, and says so
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health["status"], "degraded");
  EXPECT_EQ(health["database"], false);
  EXPECT_EQ(TotalJobs(), 0) << "reads still work, and show no unacknowledged job";

  faults_.Clear();  // space freed
  EXPECT_EQ(EnqueueReply().status, 201);
  EXPECT_EQ(Get("/health/ready").status, 200);
  EXPECT_EQ(Get("/health")["status"], "healthy");
  EXPECT_EQ(TotalJobs(), 1);
}

TEST_F(ApiHealthFaultsTest, FailedFsyncStopsWritesAndReadinessUntilRestart) {
  EXPECT_EQ(EnqueueReply().status, 201);
  // Every fsync of the WAL fails, on every connection, as Linux reports a
  // writeback error to every open file of it. (A one-shot fault could be
  // taken by the checkpointer, woken by the commit above, while this
  // enqueue's own fsync then succeeded: a 201 the real kernel would not give.)
  faults_.Inject(FaultOp::kSync, FaultFile::kWal, SQLITE_IOERR_FSYNC);
  Reply failed = EnqueueReply();
  EXPECT_EQ(failed.status, 503) << failed.raw.body;
  EXPECT_GE(faults_.injected(), 1);
  // The disk answers again, the server does not pretend it is fine.
  faults_.Clear();
  for (int i = 0; i < 3; ++i) {
    Reply r = EnqueueReply();
    EXPECT_EQ(r.status, 503) << r.raw.body;
    EXPECT_NE(Message(r).find("writes are stopped"), std::string::npos) << Message(r);
  }
  EXPECT_EQ(Post("/api/v1/queues/q/pause", "{}").status, 503);
  Reply ready = Get("/health/ready");
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(Message(ready).find("fsync"), std::string::npos) << Message(ready);
  // Reads never show the job whose enqueue failed. With the pipelined WAL
  // sync (the default) its batch was visible before the syncer's fsync
  // failed, and then reads answer 503 rather than show it; if the failed
  // fsync was another connection's (the duty lease's COMMIT), the batch was
  // never committed and reads show what was acknowledged.
  Reply stats = Get("/api/v1/jobs/stats?queue_name=q");
  if (stats.status == 200) {
    EXPECT_EQ(stats["total"].as_int64(), 1) << "only the job acknowledged before the failure";
  } else {
    EXPECT_EQ(stats.status, 503) << stats.raw.body;
    EXPECT_NE(Message(stats).find("fsync"), std::string::npos) << Message(stats);
  }
}

// The same with --sqlite-sync full: SQLite never shows a commit whose fsync
// failed, so reads go on and show only what was acknowledged.
class ApiHealthFaultsFullSyncTest : public ApiHealthFaultsTest {
 protected:
  void SetUp() override {
    store_options_.sync = store::SqliteSync::kFull;
    ApiHealthFaultsTest::SetUp();
  }
};

TEST_F(ApiHealthFaultsFullSyncTest, FailedFsyncStopsWritesAndReadsShowOnlyTheAcknowledged) {
  EXPECT_EQ(EnqueueReply().status, 201);
  faults_.Inject(FaultOp::kSync, FaultFile::kWal, SQLITE_IOERR_FSYNC);
  Reply failed = EnqueueReply();
  EXPECT_EQ(failed.status, 503) << failed.raw.body;
  faults_.Clear();
  Reply again = EnqueueReply();
  EXPECT_EQ(again.status, 503) << again.raw.body;
  EXPECT_NE(Message(again).find("writes are stopped"), std::string::npos) << Message(again);
  EXPECT_EQ(Get("/health/ready").status, 503);
  EXPECT_EQ(TotalJobs(), 1) << "only the job acknowledged before the failure";
}

}  // namespace
}  // namespace redrive::api
