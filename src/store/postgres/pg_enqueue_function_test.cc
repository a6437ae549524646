// redrive.enqueue against a real PostgreSQL, called as an application would
// (its own connection, its own transaction): the job exists if and only if
// the transaction commits, its wake-up is sent at commit only, and what it
// writes is what the store's own enqueue writes for the same inputs.
#include "store/postgres/pg_enqueue_function.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "core/new_job.h"
#include "core/random.h"
#include "core/time_format.h"
#include "store/postgres/pg_database_for_test.h"
#include "store/postgres/pg_wake_channel.h"

namespace redrive::store::postgres {
namespace {

using namespace std::chrono_literals;

// The wake-ups one channel (one node) heard, in order.
struct Heard {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> queues;
  bool connected = false;

  bool Wait(const std::function<bool()>& ready) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, 20s, ready);
  }
  bool WaitFor(const std::string& q) {
    return Wait([&] { return std::find(queues.begin(), queues.end(), q) != queues.end(); });
  }
  std::vector<std::string> Snapshot() {
    std::lock_guard<std::mutex> lock(mu);
    return queues;
  }
};

class PgEnqueueFunctionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = FreshDatabaseUrl();
    store_ = OpenStore(url_);
    ASSERT_NE(store_, nullptr);
    app_ = Connect(url_);
  }

  // `sql` on the application's connection; its error text ("" if none).
  std::string Run(const std::string& sql) {
    auto r = app_->Exec(sql);
    return r.ok() ? "" : r.status().message();
  }
  // Enqueues with `args` in a transaction of its own that commits.
  std::string Enqueue(const std::string& args) {
    EXPECT_EQ(Run("BEGIN"), "");
    std::string id = Scalar(*app_, "SELECT redrive.enqueue(" + args + ")");
    EXPECT_EQ(Run("COMMIT"), "");
    return id;
  }
  Job Read(const std::string& id) {
    auto tx = store_->BeginRead();
    EXPECT_TRUE(tx.ok());
    auto job = (*tx)->GetJob(id);
    EXPECT_TRUE(job.ok()) << job.status().ToString();
    return job.ok() ? *job : Job{};
  }
  std::vector<HistoryEntry> History(const std::string& id) {
    auto tx = store_->BeginRead();
    auto h = (*tx)->GetHistory(id);
    EXPECT_TRUE(h.ok());
    return h.ok() ? *h : std::vector<HistoryEntry>{};
  }
  std::optional<QueueConfig> Queue(const std::string& name) {
    auto tx = store_->BeginRead();
    auto q = (*tx)->GetQueue(name);
    EXPECT_TRUE(q.ok());
    return q.ok() ? *q : std::nullopt;
  }
  // The jobs in the table; the store's counters (CountJobs), which the
  // function moves too, must say the same.
  long long CountJobs() {
    const long long rows = std::stoll(Scalar(*app_, "SELECT count(*) FROM redrive.jobs"));
    auto tx = store_->BeginRead();
    EXPECT_TRUE(tx.ok());
    auto counts = (*tx)->CountJobs(std::nullopt);
    EXPECT_TRUE(counts.ok()) << counts.status().ToString();
    if (counts.ok()) {
      EXPECT_EQ(counts->total(), rows);
    }
    return rows;
  }

  // What the server's own enqueue (MakeNewJob + EnsureQueue + InsertJob)
  // writes for `params`.
  Job StoreEnqueue(const NewJobParams& params) {
    auto tx = store_->BeginWrite();
    EXPECT_TRUE(tx.ok());
    const Instant now = SystemClock().Now();
    auto queue = (*tx)->EnsureQueue(params.queue_name, now, kNoQueueLimit);
    EXPECT_TRUE(queue.ok());
    SystemRandom random;
    UuidV7Sequence ids;
    NewJob made = MakeNewJob(params, *queue, now, random, ids);
    EXPECT_TRUE((*tx)->InsertJob(made.job, made.created).ok());
    EXPECT_TRUE((*tx)->Commit().ok());
    return Read(made.job.id);
  }

  std::string url_;
  std::unique_ptr<PgStore> store_;
  std::unique_ptr<PgConnection> app_;
};

TEST(EnqueueFunctionSqlTest, EveryPlaceholderIsFilledFromTheLimits) {
  ServerLimits limits;
  limits.max_payload_bytes = 12345;
  limits.max_tags = 7;
  const std::string sql = EnqueueFunctionSql(limits);
  EXPECT_EQ(sql.find("{{"), std::string::npos) << sql;
  EXPECT_NE(sql.find("> 12345 THEN"), std::string::npos);
  EXPECT_NE(sql.find("more than 7 entries"), std::string::npos);
}

TEST_F(PgEnqueueFunctionTest, ACommittedEnqueueWritesWhatTheStoresOwnEnqueueWrites) {
  const std::string id = Enqueue(
      "'sqlq', '{\"a\": 1}', priority => 5, max_retries => 7, tags => '{\"team\": \"billing\"}', "
      "idempotency_key => 'order-1'");
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '7');  // a UUIDv7, like the server's ids
  Job sql_job = Read(id);

  NewJobParams p;
  p.queue_name = "ownq";
  p.payload_json = "{\"a\": 1}";
  p.priority = 5;
  p.max_retries = 7;
  p.tags = {{"team", "billing"}};
  p.idempotency_key = "order-2";
  Job own = StoreEnqueue(p);

  // The same row but for what must differ: id, queue, key and times.
  EXPECT_LE(own.created_at - sql_job.created_at, std::chrono::seconds(30));
  EXPECT_EQ(sql_job.scheduled_at, sql_job.created_at);
  EXPECT_EQ(sql_job.updated_at, sql_job.created_at);
  // The id's milliseconds are the job's creation time, as NewUuidV7 makes them.
  EXPECT_EQ(std::stoll(id.substr(0, 8) + id.substr(9, 4), nullptr, 16),
            ToMicros(sql_job.created_at) / 1000);
  Job expected = own;
  expected.id = sql_job.id;
  expected.queue_name = "sqlq";
  expected.idempotency_key = "order-1";
  expected.created_at = expected.updated_at = expected.scheduled_at = sql_job.created_at;
  EXPECT_EQ(sql_job, expected);

  // The queue it created is the one EnsureQueue creates.
  std::optional<QueueConfig> sql_queue = Queue("sqlq"), own_queue = Queue("ownq");
  ASSERT_TRUE(sql_queue && own_queue);
  QueueConfig expected_queue = *own_queue;
  expected_queue.queue_name = "sqlq";
  expected_queue.created_at = sql_queue->created_at;
  expected_queue.updated_at = sql_queue->updated_at;
  EXPECT_EQ(*sql_queue, expected_queue);

  // And its history is the "created" entry.
  std::vector<HistoryEntry> h = History(id);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].event_type, "created");
  EXPECT_EQ(h[0].details_json, "{\"queue_name\":\"sqlq\"}");
  EXPECT_EQ(h[0].created_at, sql_job.created_at);
  EXPECT_EQ(h[0].worker_id, std::nullopt);
  EXPECT_EQ(h[0].node_id, std::nullopt);  // no node wrote it: the application's transaction
  EXPECT_EQ(History(own.id)[0].details_json, "{\"queue_name\":\"ownq\"}");
  EXPECT_EQ(CountJobs(), 2);
}

TEST_F(PgEnqueueFunctionTest, AFutureRunAtIsScheduledAndItsHistorySaysWhen) {
  const std::string id = Enqueue("'later', '{}', scheduled_at => now() + interval '1 hour'");
  Job job = Read(id);
  EXPECT_EQ(job.status, JobStatus::kScheduled);
  EXPECT_GT(job.scheduled_at - job.created_at, std::chrono::minutes(59));
  std::vector<HistoryEntry> h = History(id);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].details_json,
            "{\"queue_name\":\"later\",\"scheduled_at\":\"" + FormatTime(job.scheduled_at) + "\"}");
}

TEST_F(PgEnqueueFunctionTest, ARolledBackEnqueueLeavesNothingAndWakesNobody) {
  Heard heard;
  PgWakeChannel channel(url_);
  ASSERT_TRUE(channel
                  .Start(
                      [&](const std::string& q) {
                        std::lock_guard<std::mutex> lock(heard.mu);
                        heard.queues.push_back(q);
                        heard.cv.notify_all();
                      },
                      [&] {
                        std::lock_guard<std::mutex> lock(heard.mu);
                        heard.connected = true;
                        heard.cv.notify_all();
                      })
                  .ok());
  ASSERT_TRUE(heard.Wait([&] { return heard.connected; }));

  ASSERT_EQ(Run("BEGIN"), "");
  std::string rolled = Scalar(*app_, "SELECT redrive.enqueue('rolled', '{\"n\": 1}')");
  ASSERT_FALSE(rolled.empty());
  ASSERT_EQ(Run("ROLLBACK"), "");
  // Notifications arrive in commit order: once this one is heard, a wake
  // for the rolled-back enqueue would have been heard before it.
  const std::string committed = Enqueue("'committed', '{\"n\": 2}'");
  ASSERT_TRUE(heard.WaitFor("committed"));
  EXPECT_EQ(heard.Snapshot(), std::vector<std::string>{"committed"});

  auto tx = store_->BeginRead();
  EXPECT_EQ((*tx)->GetJob(rolled).status().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(Queue("rolled").has_value());  // the queue it made is gone too
  EXPECT_EQ(Read(committed).status, JobStatus::kPending);
  EXPECT_EQ(CountJobs(), 1);
}

TEST_F(PgEnqueueFunctionTest, AnIdempotencyKeyGivesOneJobInOneTransactionOrAcrossTwo) {
  const std::string first = Enqueue("'idem', '{}', idempotency_key => 'k'");
  EXPECT_EQ(Enqueue("'idem', '{\"other\": true}', idempotency_key => 'k'"), first);
  ASSERT_EQ(Run("BEGIN"), "");
  const std::string a =
      Scalar(*app_, "SELECT redrive.enqueue('idem', '{}', idempotency_key => 'j')");
  const std::string b =
      Scalar(*app_, "SELECT redrive.enqueue('idem', '{}', idempotency_key => 'j')");
  ASSERT_EQ(Run("COMMIT"), "");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, first);
  EXPECT_EQ(CountJobs(), 2);
  // A replay answers even once the queue is disabled.
  QueueConfig q = *Queue("idem");
  q.enabled = false;
  auto tx = store_->BeginWrite();
  ASSERT_TRUE((*tx)->PutQueue(q).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  EXPECT_EQ(Enqueue("'idem', '{}', idempotency_key => 'k'"), first);
}

TEST_F(PgEnqueueFunctionTest, ABadArgumentIsRefusedWithItsNameAndSqlstate) {
  struct Case {
    std::string args, sqlstate, says;
  };
  const std::vector<Case> cases = {
      {"'', '{}'", "22023", "queue_name must be 1-100 characters"},
      {"'.hidden', '{}'", "22023", "queue_name"},
      {"'has space', '{}'", "22023", "queue_name"},
      {"'" + std::string(101, 'q') + "', '{}'", "22023", "queue_name"},
      {"'q', NULL", "22023", "payload is required"},
      {"'q', '{}', priority => 101", "22023", "priority must be an integer in [-100, 100]"},
      {"'q', '{}', priority => NULL", "22023", "priority"},
      {"'q', '{}', max_retries => -1", "22023", "max_retries"},
      {"'q', '{}', max_retries => 101", "22023", "max_retries"},
      {"'q', '{}', timeout_seconds => 0", "22023", "timeout_seconds"},
      {"'q', '{}', idempotency_key => ''", "22023", "idempotency_key"},
      {"'q', '{}', idempotency_key => repeat('k', 256)", "22023", "idempotency_key"},
      {"'q', '{}', tags => '[1]'", "22023", "tags must be an object of strings"},
      {"'q', '{}', tags => '{\"n\": 1}'", "22023", "tags.n must be a string"},
      {"'q', '{}', tags => '{\"v\": \"" + std::string(257, 'v') + "\"}'", "54000",
       "tags.v exceeds"},
      {"'q', '{}', expires_at => now() - interval '1 second'", "22023", "expires_at"},
      {"'q', jsonb_build_object('big', repeat('x', 1048576))", "54000", "payload exceeds"},
  };
  for (const Case& c : cases) {
    ASSERT_EQ(Run("BEGIN"), "");
    const std::string error = Run("SELECT redrive.enqueue(" + c.args + ")");
    EXPECT_NE(error.find("postgresql " + c.sqlstate), std::string::npos) << c.args << ": " << error;
    EXPECT_NE(error.find(c.says), std::string::npos) << c.args << ": " << error;
    ASSERT_EQ(Run("ROLLBACK"), "");
  }
  EXPECT_EQ(CountJobs(), 0);
}

TEST_F(PgEnqueueFunctionTest, ADisabledQueueIsRefused) {
  Enqueue("'off', '{}'");
  QueueConfig q = *Queue("off");
  q.enabled = false;
  auto tx = store_->BeginWrite();
  ASSERT_TRUE((*tx)->PutQueue(q).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  ASSERT_EQ(Run("BEGIN"), "");
  const std::string error = Run("SELECT redrive.enqueue('off', '{}')");
  EXPECT_NE(error.find("postgresql 55000"), std::string::npos) << error;
  EXPECT_NE(error.find("queue off is disabled"), std::string::npos) << error;
  ASSERT_EQ(Run("ROLLBACK"), "");
}

TEST_F(PgEnqueueFunctionTest, TheLimitsAreTheServersConfiguredOnes) {
  PgOptions options;
  options.limits.max_payload_bytes = 16;
  options.limits.max_tags = 1;
  auto strict = OpenStore(url_, true, options);  // reinstalls the function
  ASSERT_NE(strict, nullptr);
  ASSERT_EQ(Run("BEGIN"), "");
  std::string error = Run("SELECT redrive.enqueue('q', '{\"more\": \"than sixteen\"}')");
  EXPECT_NE(error.find("payload exceeds 16 bytes"), std::string::npos) << error;
  ASSERT_EQ(Run("ROLLBACK"), "");
  ASSERT_EQ(Run("BEGIN"), "");
  error = Run("SELECT redrive.enqueue('q', '{}', tags => '{\"a\": \"1\", \"b\": \"2\"}')");
  EXPECT_NE(error.find("more than 1 entries"), std::string::npos) << error;
  ASSERT_EQ(Run("ROLLBACK"), "");
  EXPECT_FALSE(Enqueue("'q', '{\"a\": 1}'").empty());
}

TEST_F(PgEnqueueFunctionTest, ANewQueuePastTheQueueLimitIsRefused) {
  PgOptions options;
  options.limits.max_queues = 2;
  auto strict = OpenStore(url_, true, options);  // reinstalls the function
  ASSERT_NE(strict, nullptr);
  EXPECT_FALSE(Enqueue("'a', '{}'").empty());
  EXPECT_FALSE(Enqueue("'b', '{}'").empty());
  ASSERT_EQ(Run("BEGIN"), "");
  const std::string error = Run("SELECT redrive.enqueue('c', '{}')");
  EXPECT_NE(error.find("postgresql 54000"), std::string::npos) << error;
  EXPECT_NE(error.find("cannot create queue c: the database already holds 2 queues"),
            std::string::npos)
      << error;
  ASSERT_EQ(Run("ROLLBACK"), "");
  EXPECT_FALSE(Enqueue("'a', '{}'").empty());  // an existing queue still takes jobs
  EXPECT_FALSE(Queue("c").has_value());
}

}  // namespace
}  // namespace redrive::store::postgres
