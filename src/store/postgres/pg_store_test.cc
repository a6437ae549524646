// PgStore's connections: how it reports an unreachable, slow, read-only or
// restarted server, the url forms it takes, and what it says about itself.
#include "store/postgres/pg_store.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <thread>

#include "store/postgres/pg_database_for_test.h"
#include "store/postgres/pg_job_sql.h"
#include "store/postgres/pg_planner_statistics.h"

namespace redrive::store::postgres {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

using SteadyClock = std::chrono::steady_clock;

// A loopback TCP port that accepts connections (the kernel's backlog) but
// never answers: a server that hangs.
class SilentPort {
 public:
  SilentPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 16);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentPort() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(PgStoreTest, TraitsAndDescription) {
  PgOptions options;
  options.pool_size = 7;
  auto store = OpenStore(FreshDatabaseUrl(), true, options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->traits().write_model, WriteModel::kTransactionPerRequest);
  EXPECT_EQ(store->traits().writer_connections, 7u);
  EXPECT_THAT(
      store->Describe(),
      MatchesRegex(R"(postgresql 15\.[0-9]+ on 127\.0\.0\.1:[0-9]+/pgstore[a-z0-9_]+ \(pool 7\))"));
  EXPECT_TRUE(store->Ping().ok());
  // Several nodes share the database: they wake each other's long polls.
  EXPECT_NE(store->NewWakeChannel(), nullptr);
}

constexpr char kNoAutovacuum[] =
    "ALTER TABLE redrive.jobs SET (autovacuum_enabled = false);"
    " ALTER TABLE redrive.job_history SET (autovacuum_enabled = false)";

// Completed jobs job-FROM .. job-TO, straight into the table.
std::string InsertJobs(int from, int to) {
  return "INSERT INTO redrive.jobs (id, queue_name, status, payload, priority, retry_count,"
         " max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms,"
         " created_at, updated_at, scheduled_at, completed_at)"
         " SELECT 'job-' || i, 'q', 'completed', '{}', 0, 0, 3, 60, 1000, 60000, 100, i, i, i, i"
         " FROM generate_series(" +
         std::to_string(from) + ", " + std::to_string(to) + ") AS i";
}

// Completed jobs enough for `jobs` to pass the statistics' floor
// (kPlannerStatisticsMinPages); asserted where used.
constexpr int kJobsPastTheFloor = 60000;

int64_t JobsPages(PgConnection& conn) {
  return std::stoll(
      Scalar(conn, "SELECT pg_relation_size('redrive.jobs') / current_setting('block_size')::int"));
}

// The set-based update of `changed`, prepared on `conn` as `name`, and its
// generic plan (the one a prepared statement keeps after its fifth run).
class GenericPlan {
 public:
  GenericPlan(PgConnection& conn, const char* name) : conn_(conn), name_(name) {
    const PgColumnSet changed =
        PgColumnBit(PgJobColumnIndex("status")) | PgColumnBit(PgJobColumnIndex("lease_id"));
    const int params = std::popcount(sql::AssignedColumns(changed)) + 3 + 6;
    for (int i = 0; i < params; ++i) nulls_ += i == 0 ? "NULL" : ", NULL";
    auto prepared = conn_.Exec("SET plan_cache_mode = force_generic_plan; PREPARE " + name_ +
                               " AS " + std::string(sql::UpdateJobsSql(changed, true)));
    EXPECT_TRUE(prepared.ok()) << prepared.status().ToString();
  }
  std::string Text() {
    auto r = conn_.Exec("EXPLAIN EXECUTE " + name_ + "(" + nulls_ + ")");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::string text;
    for (int i = 0; r.ok() && i < r->rows(); ++i) text += r->String(i, 0) + "\n";
    return text;
  }

 private:
  PgConnection& conn_;
  std::string name_;
  std::string nulls_;
};

// A store on a fresh database, and a connection of the test's own. Only
// the refresh analyzes here: autovacuum would race the assertions.
class PgStatisticsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store = OpenStore(url);
    ASSERT_NE(store, nullptr);
    conn = Connect(url);
    ASSERT_TRUE(conn->Exec(kNoAutovacuum).ok());
  }
  const std::string url = FreshDatabaseUrl();
  std::unique_ptr<PgStore> store;
  std::unique_ptr<PgConnection> conn;
};

// A prepared statement's generic plan is made once, with the table's size as
// its statistics say. Prepared while the jobs table was small, the
// set-based update would join its rows to a scan of the whole table, and
// keep doing so as the table grows. Our sessions plan without sequential
// scans where an index serves (kSessionPlanning): the plan made on a
// table of 20 rows finds its rows by key, and is right at 20,000.
TEST_F(PgStatisticsTest, AGenericPlanMadeOnASmallTableFindsItsRowsByKey) {
  ASSERT_TRUE(conn->Exec(InsertJobs(1, 20)).ok());
  GenericPlan ours(*conn, "ours");
  const std::string small = ours.Text();
  EXPECT_THAT(small, HasSubstr("jobs_pkey"));
  EXPECT_THAT(small, Not(HasSubstr("Seq Scan on jobs"))) << small;

  // What the setting prevents: the same statement planned by a session of
  // PostgreSQL's defaults scans the small table.
  ASSERT_TRUE(conn->Exec("RESET enable_seqscan").ok());
  GenericPlan defaults(*conn, "defaults");
  EXPECT_THAT(defaults.Text(), HasSubstr("Seq Scan on jobs"));

  // The table grows, nothing analyzes it, and the plan of then is kept
  // (made on a session with the setting, whatever the session says now).
  ASSERT_TRUE(conn->Exec(InsertJobs(21, 20000)).ok());
  EXPECT_EQ(ours.Text(), small);
  auto refreshed = store->RefreshPlannerStatistics();
  ASSERT_TRUE(refreshed.ok()) << refreshed.status().ToString();
  EXPECT_EQ(*refreshed, PlannerStatistics::kFresh) << "below the floor: left to autovacuum";
}

// Past the floor, RefreshPlannerStatistics takes the statistics once the
// table has doubled since they were taken (which makes every plan that
// read it again, on every connection): its size and the columns the plans
// use, not the others.
TEST_F(PgStatisticsTest, PlannerStatisticsAreTakenPastTheFloorOnceTheTableHasDoubled) {
  ASSERT_TRUE(conn->Exec(InsertJobs(1, 20)).ok());
  auto refreshed = store->RefreshPlannerStatistics();
  ASSERT_TRUE(refreshed.ok()) << refreshed.status().ToString();
  EXPECT_EQ(*refreshed, PlannerStatistics::kFresh);

  ASSERT_TRUE(conn->Exec(InsertJobs(21, kJobsPastTheFloor)).ok());
  ASSERT_GE(JobsPages(*conn), kPlannerStatisticsMinPages);
  refreshed = store->RefreshPlannerStatistics();
  ASSERT_TRUE(refreshed.ok()) << refreshed.status().ToString();
  EXPECT_EQ(*refreshed, PlannerStatistics::kRefreshed);
  EXPECT_EQ(Scalar(*conn, "SELECT relpages FROM pg_class WHERE oid = 'redrive.jobs'::regclass"),
            std::to_string(JobsPages(*conn)));
  auto analyzed = [&](const char* column) {
    return Scalar(*conn,
                  "SELECT count(*) FROM pg_stats WHERE schemaname = 'redrive'"
                  " AND tablename = 'jobs' AND attname = '" +
                      std::string(column) + "'");
  };
  EXPECT_EQ(analyzed("status"), "1");
  EXPECT_EQ(analyzed("queue_name"), "1");
  EXPECT_EQ(analyzed("payload"), "0");
  // Not again until the table has doubled again.
  refreshed = store->RefreshPlannerStatistics();
  ASSERT_TRUE(refreshed.ok());
  EXPECT_EQ(*refreshed, PlannerStatistics::kFresh);
}

// A table another session holds (a vacuum takes the same lock) is not
// waited for: the refresh gives up within its lock timeout and succeeds at
// a later call.
TEST_F(PgStatisticsTest, APlannerStatisticsRefreshDoesNotWaitForATableVacuumHolds) {
  ASSERT_TRUE(conn->Exec(InsertJobs(1, kJobsPastTheFloor)).ok());
  ASSERT_GE(JobsPages(*conn), kPlannerStatisticsMinPages);
  auto vacuum = Connect(url);
  ASSERT_TRUE(vacuum->Exec("BEGIN; LOCK TABLE redrive.jobs IN SHARE UPDATE EXCLUSIVE MODE").ok());
  const auto start = SteadyClock::now();
  auto refreshed = store->RefreshPlannerStatistics();
  ASSERT_TRUE(refreshed.ok()) << refreshed.status().ToString();
  EXPECT_EQ(*refreshed, PlannerStatistics::kFresh);
  EXPECT_LT(SteadyClock::now() - start, std::chrono::seconds(5));  // not until the lock goes
  EXPECT_EQ(Scalar(*conn, "SELECT relpages FROM pg_class WHERE oid = 'redrive.jobs'::regclass"),
            "0");
  ASSERT_TRUE(vacuum->Exec("COMMIT").ok());
  refreshed = store->RefreshPlannerStatistics();
  ASSERT_TRUE(refreshed.ok()) << refreshed.status().ToString();
  EXPECT_EQ(*refreshed, PlannerStatistics::kRefreshed);
  EXPECT_NE(Scalar(*conn, "SELECT relpages FROM pg_class WHERE oid = 'redrive.jobs'::regclass"),
            "0");
  EXPECT_TRUE(store->Ping().ok());  // and the read connection it used is fine
}

// Every live node holds its database's node lock, and LiveNodes counts the
// holders (the default pool is divided by it: engine/services/write_share.h).
// A node that gave its duties up (it is stopping) or whose leadership is gone
// is not counted, nor are the nodes of another database.
TEST(PgStoreTest, LiveNodesCountsTheLiveLeadershipsOfItsDatabase) {
  auto store = OpenStore(FreshDatabaseUrl());
  auto elsewhere = OpenStore(FreshDatabaseUrl());
  ASSERT_NE(store, nullptr);
  ASSERT_NE(elsewhere, nullptr);
  const Instant now = InstantFromMicros(0);
  auto nodes = [&](Leadership& l) {
    Result<int> n = l.LiveNodes(now);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : -1;
  };
  auto a = store->NewLeadership("node-a");
  auto b = store->NewLeadership("node-b");
  auto c = elsewhere->NewLeadership("node-c");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(nodes(**a), 1);  // itself: asking takes the lock
  ASSERT_TRUE((*b)->Hold("scheduler", now).ok());
  EXPECT_EQ(nodes(**a), 2);
  EXPECT_EQ(nodes(**b), 2);
  EXPECT_EQ(nodes(**c), 1);  // another database's nodes are apart
  (*b)->ReleaseAll();
  EXPECT_EQ(nodes(**a), 1);
  ASSERT_TRUE((*b)->Hold("scheduler", now).ok());  // it is back
  EXPECT_EQ(nodes(**a), 2);
  b->reset();
  EXPECT_EQ(nodes(**a), 1);
}

TEST(PgStoreTest, TakesKeywordAndMultiHostUrls) {
  const std::string url = FreshDatabaseUrl();
  const int port = ::redrive::testing::PgCluster::Shared().port();
  const std::string db = url.substr(url.rfind('/') + 1);
  auto keywords =
      PgStore::Open("host=127.0.0.1 port=" + std::to_string(port) + " user=postgres dbname=" + db);
  ASSERT_TRUE(keywords.ok()) << keywords.status().ToString();
  EXPECT_TRUE((*keywords)->Ping().ok());
  // The first host refuses; libpq goes on to the second, a writable one.
  auto multi = PgStore::Open("postgres://postgres@127.0.0.1:1,127.0.0.1:" + std::to_string(port) +
                             "/" + db + "?target_session_attrs=read-write");
  ASSERT_TRUE(multi.ok()) << multi.status().ToString();
  EXPECT_TRUE((*multi)->Migrate().ok());
}

TEST(PgStoreTest, AnUnreachableServerIsUnavailable) {
  auto store = PgStore::Open("postgresql://postgres@127.0.0.1:1/x");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), ErrorCode::kUnavailable) << store.status().ToString();
}

TEST(PgStoreTest, AServerThatNeverAnswersFailsWithinTheConnectTimeout) {
  SilentPort silent;
  PgOptions options;
  options.connect_timeout = std::chrono::milliseconds(300);
  const auto start = SteadyClock::now();
  auto store = PgStore::Open(
      "postgresql://postgres@127.0.0.1:" + std::to_string(silent.port()) + "/x", options);
  const auto took = SteadyClock::now() - start;
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), ErrorCode::kUnavailable) << store.status().ToString();
  EXPECT_GE(took, std::chrono::milliseconds(250));
  EXPECT_LT(took, std::chrono::milliseconds(2000));
}

TEST(PgStoreTest, AReadOnlyDatabaseIsUnavailableForWrites) {
  const std::string url = FreshDatabaseUrl();
  auto store = OpenStore(url);
  ASSERT_NE(store, nullptr);
  const std::string db = url.substr(url.rfind('/') + 1);
  ASSERT_TRUE(
      Connect(url)->Exec("ALTER DATABASE " + db + " SET default_transaction_read_only = on").ok());
  // New sessions only: a fresh store.
  auto read_only = OpenStore(url, /*migrate=*/false);
  ASSERT_NE(read_only, nullptr);
  auto tx = read_only->BeginWrite();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  auto q = (*tx)->EnsureQueue("q", InstantFromMicros(0), kNoQueueLimit);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), ErrorCode::kUnavailable) << q.status().ToString();
}

TEST(PgStoreTest, ReadinessFailsWhileTheDatabaseCannotWriteAndRecoversWithoutTraffic) {
  const std::string url = FreshDatabaseUrl();
  auto store = OpenStore(url);
  ASSERT_NE(store, nullptr);
  const std::string db = url.substr(url.rfind('/') + 1);
  auto admin = Connect(url);
  ASSERT_TRUE(admin->Exec("ALTER DATABASE " + db + " SET default_transaction_read_only = on").ok());
  // The store's sessions began before: end them, as a failover would.
  ASSERT_TRUE(admin
                  ->Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                         " WHERE datname = current_database() AND pid <> pg_backend_pid()")
                  .ok());
  for (int i = 0; i < 2; ++i) {  // the first write may meet a terminated connection
    auto tx = store->BeginWrite();
    if (tx.ok()) (void)(*tx)->EnsureQueue("q", InstantFromMicros(0), kNoQueueLimit);
  }
  Status ready = store->Ping();
  EXPECT_EQ(ready.code(), ErrorCode::kUnavailable) << ready.ToString();
  EXPECT_THAT(ready.message(), HasSubstr("read-only"));
  // Still not ready at the next ping: its probe commit fails the same way.
  EXPECT_EQ(store->Ping().code(), ErrorCode::kUnavailable);
  // The operator fixes the database; no client writes, the ping's probe
  // finds out.
  ASSERT_TRUE(admin->Exec("ALTER DATABASE " + db + " RESET default_transaction_read_only").ok());
  ready = store->Ping();
  EXPECT_TRUE(ready.ok()) << ready.ToString();
}

TEST(PgStoreTest, ReadinessFailsWhileACommitWaits) {
  const std::string url = FreshDatabaseUrl();
  PgOptions options;
  options.commit_stall_after = std::chrono::milliseconds(100);
  auto store = OpenStore(url, true, options);
  ASSERT_NE(store, nullptr);
  // A commit that waits, as one does for a synchronous standby that stopped
  // answering: a deferred trigger that takes an advisory lock the test holds.
  auto admin = Connect(url);
  ASSERT_TRUE(admin
                  ->Exec("CREATE FUNCTION public.wait_for_42() RETURNS trigger LANGUAGE plpgsql"
                         " AS $$BEGIN PERFORM pg_advisory_xact_lock(42); RETURN NULL; END$$;"
                         " CREATE CONSTRAINT TRIGGER wait_at_commit AFTER INSERT ON redrive.queues"
                         " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW"
                         " EXECUTE FUNCTION public.wait_for_42();"
                         " SELECT pg_advisory_lock(42)")
                  .ok());
  std::thread writer([&] {
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE((*tx)->EnsureQueue("q", InstantFromMicros(0), kNoQueueLimit).ok());
    EXPECT_TRUE((*tx)->Commit().ok());
  });
  // Wait (bounded) for readiness to notice the waiting commit.
  Status ready;
  const auto give_up = SteadyClock::now() + std::chrono::seconds(10);
  while ((ready = store->Ping()).ok() && SteadyClock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ready.code(), ErrorCode::kUnavailable);
  EXPECT_THAT(ready.message(), HasSubstr("a commit to postgresql has waited"));
  ASSERT_TRUE(admin->Exec("SELECT pg_advisory_unlock(42)").ok());
  writer.join();
  ready = store->Ping();
  EXPECT_TRUE(ready.ok()) << ready.ToString();
}

TEST(PgStoreTest, ALostConnectionIsUnavailableAndTheNextTransactionReconnects) {
  const std::string url = FreshDatabaseUrl();
  auto store = OpenStore(url);
  ASSERT_NE(store, nullptr);
  auto tx = store->BeginWrite();
  ASSERT_TRUE(tx.ok());
  // An operator (or a failover) ends every session of the database.
  auto admin = Connect(url);
  ASSERT_TRUE(admin
                  ->Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                         " WHERE datname = current_database() AND pid <> pg_backend_pid()")
                  .ok());
  auto q = (*tx)->EnsureQueue("q", InstantFromMicros(0), kNoQueueLimit);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), ErrorCode::kUnavailable) << q.status().ToString();
  tx->reset();
  // Idle connections died too; the pool replaces each on its next use.
  for (int i = 0; i < 3; ++i) {
    auto again = store->BeginWrite();
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    ASSERT_TRUE((*again)->EnsureQueue("q", InstantFromMicros(0), kNoQueueLimit).ok());
    ASSERT_TRUE((*again)->Commit().ok());
  }
  EXPECT_TRUE(store->Ping().ok());
}

TEST(PgStoreTest, SurvivesAServerCrashAndRestart) {
  auto cluster = ::redrive::testing::PgCluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  auto db = (*cluster)->CreateUniqueDatabase();
  ASSERT_TRUE(db.ok());
  PgOptions options;
  options.connect_timeout = std::chrono::milliseconds(500);
  auto store = OpenStore((*cluster)->Url(*db), true, options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Ping().ok());
  {
    // Committed before the crash: it survives it (synchronous_commit=on).
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE((*tx)->EnsureQueue("durable", InstantFromMicros(0), kNoQueueLimit).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  ASSERT_TRUE((*cluster)->Kill().ok());
  // Backends outlive a killed postmaster for a moment (each is in a
  // session of its own and exits when it notices): within a bounded time
  // every new transaction is UNAVAILABLE, at once, never hanging.
  const auto until = SteadyClock::now() + std::chrono::seconds(5);
  Result<std::unique_ptr<WriteTx>> down = store->BeginWrite();
  while (down.ok() && SteadyClock::now() < until) {
    down->reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    down = store->BeginWrite();
  }
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().code(), ErrorCode::kUnavailable) << down.status().ToString();
  const auto start = SteadyClock::now();
  auto again = store->BeginWrite();
  EXPECT_EQ(again.status().code(), ErrorCode::kUnavailable) << again.status().ToString();
  EXPECT_LT(SteadyClock::now() - start, std::chrono::seconds(1));

  ASSERT_TRUE((*cluster)->Restart().ok());
  auto up = store->BeginWrite();
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  ASSERT_TRUE((*up)->EnsureQueue("q", InstantFromMicros(0), kNoQueueLimit).ok());
  EXPECT_TRUE((*up)->Commit().ok());
  EXPECT_TRUE(store->Ping().ok());
  auto read = store->BeginRead();
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE((*read)->GetQueue("durable")->has_value());
}

// A newer node's migration that changes the type of a column the job
// queries return leaves every prepared statement that reads it refused
// ("cached plan must not change result type", 0A000) until it is prepared
// again. The statement that meets it fails as ABORTED (a write's executor
// runs the request again); every connection then prepares its statements
// again before its next command, without meeting the error itself.
TEST(PgStoreTest, StatementsAChangedColumnTypeMadeStaleArePreparedAgain) {
  const std::string url = FreshDatabaseUrl();
  PgOptions options;
  options.pool_size = 1;
  options.read_pool_size = 1;
  auto store = OpenStore(url, true, options);
  ASSERT_NE(store, nullptr);
  Job job;
  job.id = "j";
  job.queue_name = "q";
  HistoryEntry h;
  h.id = "h";
  auto write = [&]() -> Status {
    REDRIVE_ASSIGN_OR_RETURN(auto tx, store->BeginWrite());
    REDRIVE_RETURN_IF_ERROR(tx->GetJob("j").status());
    return tx->Commit();
  };
  auto read = [&]() -> Status {
    REDRIVE_ASSIGN_OR_RETURN(auto tx, store->BeginRead());
    return tx->GetJob("j").status();
  };
  {
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    ASSERT_TRUE((*tx)->InsertJob(job, h).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  // Both connections prepare the job's select.
  ASSERT_TRUE(write().ok());
  ASSERT_TRUE(read().ok());
  auto other = Connect(url);
  ASSERT_TRUE(other->Exec("ALTER TABLE redrive.jobs ALTER COLUMN last_error TYPE varchar").ok());

  Status stale = write();
  EXPECT_EQ(stale.code(), ErrorCode::kAborted) << stale.ToString();
  EXPECT_THAT(stale.message(), HasSubstr("0A000"));
  EXPECT_TRUE(read().ok()) << "the read connection prepares its statements again";
  EXPECT_TRUE(write().ok());
  EXPECT_TRUE(read().ok());
}

// A failed statement, sent at once or with the COMMIT, leaves nothing and
// the connection usable.
TEST(PgStoreTest, ARollbackAfterAFailedStatementKeepsTheConnection) {
  auto store = OpenStore(FreshDatabaseUrl());
  ASSERT_NE(store, nullptr);
  {
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok());
    Job job;
    job.id = "j";
    job.queue_name = "q";
    job.priority = 1000;        // refused by a CHECK constraint
    job.idempotency_key = "k";  // so that the insert runs at once (not deferred)
    HistoryEntry h;
    h.id = "h";
    auto out = (*tx)->InsertJob(job, h);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), ErrorCode::kInternal) << out.status().ToString();
    EXPECT_THAT(out.status().message(), HasSubstr("23514"));
    EXPECT_FALSE((*tx)->Commit().ok());  // a rolled-back transaction never passes for committed
  }
  {
    // Without a key the insert rides with the COMMIT, which it fails.
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok());
    Job job;
    job.id = "j";
    job.queue_name = "q";
    job.priority = 1000;
    HistoryEntry h;
    h.id = "h";
    ASSERT_TRUE((*tx)->InsertJob(job, h).ok());
    Status committed = (*tx)->Commit();
    ASSERT_FALSE(committed.ok());
    EXPECT_THAT(committed.message(), HasSubstr("23514"));
    auto read = store->BeginRead();
    ASSERT_TRUE(read.ok());
    EXPECT_EQ((*read)->GetJob("j").status().code(), ErrorCode::kNotFound);
  }
  auto tx = store->BeginWrite();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  EXPECT_TRUE((*tx)->EnsureQueue("q", InstantFromMicros(0), kNoQueueLimit).ok());
  EXPECT_TRUE((*tx)->Commit().ok());
}

}  // namespace
}  // namespace redrive::store::postgres
