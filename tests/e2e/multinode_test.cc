// Three `redrive serve` processes on one PostgreSQL database, as behind a
// load balancer: every job completed exactly once under contention, fencing
// across nodes, a redrive on one node waking a long-poll on another, kill -9
// of a node losing nothing acknowledged (its leases reclaimed by the others),
// and webhook events delivered once; history entries, log lines and the
// throughput chart that know their nodes; and a node outliving a database
// outage. Always on PostgreSQL (the shared test
// cluster), whatever REDRIVE_TEST_STORE says.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "e2e/support/http_client.h"
#include "e2e/support/server_process.h"
#include "e2e/support/wait.h"
#include "e2e/support/webhook_receiver.h"
#include "support/pg_cluster.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

std::string Str(const json::value& v) { return std::string(v.as_string()); }

class MultiNodeTest : public ::testing::Test {
 protected:
  static constexpr int kNodes = 3;

  void SetUp() override {
    const std::string url = NewPostgresStoreUrl();
    db_ = url.substr(url.rfind('/') + 1);
    db_ = db_.substr(0, db_.find('?'));
    for (int i = 0; i < kNodes; ++i) {
      ServerOptions o;
      o.store = url;
      // The test's webhook receiver is on loopback.
      o.extra_args = {"--webhook-retry-base-ms", "100", "--webhook-allow-private-targets",
                      "--node-id", "node-" + std::to_string(i)};
      nodes_.push_back(std::make_unique<ServerProcess>(o));
    }
    // One at a time, so the first migrates and the others find the schema
    // (the concurrent start is the store's own test).
    for (auto& n : nodes_) ASSERT_TRUE(n->Start());
  }

  HttpClient Client(int node) { return nodes_[node]->Client(); }

  JsonResponse Post(int node, const std::string& path, const json::value& body) {
    return Client(node).JsonRequest("POST", "/api/v1" + path, body);
  }
  JsonResponse Get(int node, const std::string& path) {
    return Client(node).JsonRequest("GET", "/api/v1" + path);
  }

  std::string Enqueue(int node, const std::string& queue, json::object extra = {}) {
    extra["queue_name"] = queue;
    if (!extra.contains("payload")) extra["payload"] = json::object{{"n", 1}};
    auto r = Post(node, "/jobs", extra);
    EXPECT_EQ(r.status, 201) << r.raw.body;
    return r.status == 201 ? Str(r.body.at("id")) : "";
  }

  json::array Claim(HttpClient& c, const std::string& queue, const std::string& worker, int limit,
                    int wait_ms, int lease_secs = 30) {
    auto r = c.JsonRequest("POST", "/api/v1/jobs/claim",
                           json::object{{"queue_name", queue},
                                        {"worker_id", worker},
                                        {"limit", limit},
                                        {"wait_ms", wait_ms},
                                        {"lease_duration_secs", lease_secs}});
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.status == 200 ? r.body.at("jobs").as_array() : json::array{};
  }

  std::string Status(int node, const std::string& id) {
    auto r = Get(node, "/jobs/" + id);
    return r.status == 200 ? Str(r.body.at("status")) : "HTTP " + std::to_string(r.status);
  }

  // Long-poll claims parked on `node` for `queue` (its /metrics gauge).
  int Parked(int node, const std::string& queue) {
    HttpResponse r = Client(node).Get("/metrics");
    const std::string key = "redrive_claims_waiting{queue=\"" + queue + "\"} ";
    auto at = r.body.find(key);
    return at == std::string::npos ? 0 : std::atoi(r.body.c_str() + at + key.size());
  }

  std::vector<std::unique_ptr<ServerProcess>> nodes_;
  std::string db_;  // the nodes' database on the shared cluster
};

TEST_F(MultiNodeTest, EveryJobIsCompletedExactlyOnceUnderContention) {
  constexpr int kJobs = 300;
  json::array jobs;
  for (int i = 0; i < kJobs; ++i) jobs.push_back(json::object{{"payload", {{"i", i}}}});
  auto bulk = Post(0, "/jobs/bulk", json::object{{"queue_name", "contended"}, {"jobs", jobs}});
  ASSERT_EQ(bulk.status / 100, 2) << bulk.raw.body;

  std::mutex mu;
  std::map<std::string, int> completed;  // job id → completions answered 200
  std::atomic<int> refused{0}, total{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 2 * kNodes; ++w) {
    workers.emplace_back([&, w] {
      const int node = w % kNodes;
      HttpClient c = Client(node);
      const std::string me = "worker-" + std::to_string(w);
      const auto until = SteadyClock::now() + 60s;
      while (total.load() < kJobs && SteadyClock::now() < until) {
        for (const auto& job : Claim(c, "contended", me, 5, 200)) {
          const std::string id = Str(job.at("id"));
          auto r = c.JsonRequest("POST", "/api/v1/jobs/" + id + "/complete",
                                 json::object{{"worker_id", me}, {"lease_id", job.at("lease_id")}});
          if (r.status == 200) {
            std::lock_guard<std::mutex> lock(mu);
            ++completed[id];
            ++total;
          } else {
            ++refused;
          }
        }
      }
    });
  }
  for (auto& t : workers) t.join();

  ASSERT_EQ(completed.size(), static_cast<size_t>(kJobs));
  for (const auto& [id, n] : completed) EXPECT_EQ(n, 1) << id;
  // Nobody was handed a job someone else held: no completion was refused.
  EXPECT_EQ(refused.load(), 0);
  auto stats = Get(1, "/queues/contended");
  ASSERT_EQ(stats.status, 200) << stats.raw.body;
  EXPECT_EQ(stats.body.at("counts").at("completed"), kJobs) << stats.raw.body;
}

TEST_F(MultiNodeTest, AStaleLeaseHolderIsFencedThroughAnotherNode) {
  const std::string id = Enqueue(0, "fenced", {{"max_retries", 3}});
  HttpClient c0 = Client(0), c1 = Client(1), c2 = Client(2);
  auto first = Claim(c0, "fenced", "slow", 1, 0, /*lease_secs=*/5);
  ASSERT_EQ(first.size(), 1u);
  const std::string stale = Str(first[0].at("lease_id"));

  // The lease runs out; whichever node leads the reaper takes the job back.
  ASSERT_TRUE(WaitUntil([&] { return Status(2, id) != "processing"; }, 15s)) << Status(2, id);
  auto second = Claim(c1, "fenced", "fast", 1, 10000);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(Str(second[0].at("id")), id);

  auto late = c2.JsonRequest("POST", "/api/v1/jobs/" + id + "/complete",
                             json::object{{"worker_id", "slow"}, {"lease_id", stale}});
  EXPECT_EQ(late.status, 409) << late.raw.body;
  auto ok =
      c0.JsonRequest("POST", "/api/v1/jobs/" + id + "/complete",
                     json::object{{"worker_id", "fast"}, {"lease_id", second[0].at("lease_id")}});
  EXPECT_EQ(ok.status, 200) << ok.raw.body;
  EXPECT_EQ(Status(1, id), "completed");
}

// Each history entry names the node that made the change, each node's log
// lines name it, and every node's throughput chart is the cluster's.
TEST_F(MultiNodeTest, HistoryLogsAndThroughputKnowTheNodes) {
  const std::string id = Enqueue(0, "named");
  Enqueue(2, "named");
  HttpClient c1 = Client(1), c2 = Client(2);
  auto claimed = Claim(c1, "named", "w", 1, 0);
  ASSERT_EQ(claimed.size(), 1u);
  ASSERT_EQ(Str(claimed[0].at("id")), id);  // the older one
  auto done =
      c2.JsonRequest("POST", "/api/v1/jobs/" + id + "/complete",
                     json::object{{"worker_id", "w"}, {"lease_id", claimed[0].at("lease_id")}});
  ASSERT_EQ(done.status, 200) << done.raw.body;

  auto history = Get(1, "/jobs/" + id + "/history");
  ASSERT_EQ(history.status, 200) << history.raw.body;
  std::vector<std::string> nodes;
  for (const auto& entry : history.body.as_array()) nodes.push_back(Str(entry.at("node_id")));
  EXPECT_EQ(nodes, (std::vector<std::string>{"node-0", "node-1", "node-2"})) << history.raw.body;
  for (int i = 0; i < kNodes; ++i) {
    const std::string log = nodes_[i]->Stderr();
    EXPECT_NE(log.find(" [node-" + std::to_string(i) + "] "), std::string::npos) << log;
  }

  // Nodes 0 and 2 each enqueued one, node 2 completed one: node 1's chart
  // shows both once their 10 s samples are written.
  auto totals = [&] {
    auto r = Get(1, "/throughput?queue_name=named");
    long long enqueued = 0, completed = 0;
    if (r.status != 200) return std::pair<long long, long long>{-1, -1};
    for (const auto& p : r.body.at("points").as_array()) {
      enqueued += p.at("enqueued").as_int64();
      completed += p.at("completed").as_int64();
    }
    return std::pair{enqueued, completed};
  };
  EXPECT_TRUE(WaitUntil(
      [&] {
        return totals() == std::pair<long long, long long>{2, 1};
      },
      25s))
      << totals().first << " enqueued, " << totals().second << " completed";
}

// A schedule ticking every second while three nodes run their background
// loops: the tick is the scheduler duty's, which one node leads at a time, and
// each fire time enqueues at most one job whoever fires it (its idempotency
// key is the schedule and the fire time). Every run's job exists, no fire time
// has two runs, and the queue holds exactly the runs' jobs.
TEST_F(MultiNodeTest, AScheduleFiresOncePerTickWhicheverNodesRunTheScheduler) {
  auto created = Post(1, "/schedules",
                      json::object{{"name", "tick"},
                                   {"cron_expression", "@every 1s"},
                                   {"queue_name", "ticks"},
                                   {"payload_template", json::object{{"n", 1}}}});
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string schedule = Str(created.body.at("id"));
  auto runs = [&](int node) {
    auto r = Get(node, "/schedules/" + schedule + "/history?limit=500");
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.status == 200 ? r.body.as_array() : json::array{};
  };
  ASSERT_TRUE(WaitUntil([&] { return runs(2).size() >= 4; }, 30s)) << runs(2).size() << " runs";
  ASSERT_EQ(Post(0, "/schedules/" + schedule + "/pause", json::object{}).status, 200);

  // Paused: what the history and the queue hold now is final.
  const json::array history = runs(2);
  std::set<std::string> fire_times, jobs;
  for (const auto& run : history) {
    EXPECT_EQ(Str(run.at("kind")), "scheduled") << run;
    EXPECT_TRUE(fire_times.insert(Str(run.at("fire_time"))).second) << "fired twice: " << run;
    // A tick the loaded machine let pass is a run without a job ("missed").
    if (run.at("job_id").is_null()) continue;
    const std::string job = Str(run.at("job_id"));
    EXPECT_TRUE(jobs.insert(job).second) << run;
    auto j = Get(0, "/jobs/" + job);
    ASSERT_EQ(j.status, 200) << j.raw.body;
    EXPECT_EQ(Str(j.body.at("queue_name")), "ticks");
  }
  auto stats = Get(1, "/jobs/stats?queue_name=ticks");
  ASSERT_EQ(stats.status, 200) << stats.raw.body;
  EXPECT_EQ(stats.body.at("total").as_int64(), static_cast<int64_t>(jobs.size())) << stats.raw.body;
  EXPECT_GE(jobs.size(), 2u) << history;
  EXPECT_EQ(runs(0).size(), history.size()) << "a run after the pause";
}

TEST_F(MultiNodeTest, ARedriveOnOneNodeWakesALongPollOnAnother) {
  // A dead job, made through node 0.
  const std::string id = Enqueue(0, "redriven", {{"max_retries", 0}});
  HttpClient c0 = Client(0);
  auto held = Claim(c0, "redriven", "w", 1, 0);
  ASSERT_EQ(held.size(), 1u);
  auto fail = c0.JsonRequest(
      "POST", "/api/v1/jobs/" + id + "/fail",
      json::object{{"worker_id", "w"}, {"lease_id", held[0].at("lease_id")}, {"error", "boom"}});
  ASSERT_EQ(fail.status, 200) << fail.raw.body;
  ASSERT_EQ(Status(1, id), "deadletter");

  // A worker long-polls node 1; the operator redrives through node 2.
  auto poll = std::async(std::launch::async, [&] {
    HttpClient c1 = Client(1);
    auto jobs = Claim(c1, "redriven", "w2", 1, 20000);
    return std::make_pair(jobs, SteadyClock::now());
  });
  ASSERT_TRUE(WaitUntil([&] { return Parked(1, "redriven") == 1; }, 10s));
  const auto redriven_at = SteadyClock::now();
  auto redrive = Post(2, "/jobs/dlq/retry", json::object{{"job_ids", json::array{id.c_str()}}});
  ASSERT_EQ(redrive.status, 200) << redrive.raw.body;
  auto [jobs, answered_at] = poll.get();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(Str(jobs[0].at("id")), id);
  // Woken through the database, not by a re-poll or the end of the wait.
  EXPECT_LT(answered_at - redriven_at, 1500ms);
}

// Transactional enqueue: an application's own transaction calls
// redrive.enqueue; a worker long-polling a node gets the job as soon as that
// transaction commits, and never one whose transaction rolled back.
TEST_F(MultiNodeTest, AJobEnqueuedInAnApplicationsTransactionWakesALongPollOnCommit) {
  auto poll = std::async(std::launch::async, [&] {
    HttpClient c1 = Client(1);
    auto jobs = Claim(c1, "in-tx", "w", 5, 20000);
    return std::make_pair(jobs, SteadyClock::now());
  });
  ASSERT_TRUE(WaitUntil([&] { return Parked(1, "in-tx") == 1; }, 10s));
  testing::PgCluster& pg = testing::PgCluster::Shared();
  auto rolled = pg.Psql("BEGIN; SELECT redrive.enqueue('in-tx', '{\"n\": 1}'); ROLLBACK;", db_);
  ASSERT_TRUE(rolled.ok()) << rolled.status().ToString();
  const auto committed_at = SteadyClock::now();
  auto committed = pg.Psql(
      "BEGIN; SELECT redrive.enqueue('in-tx', '{\"n\": 2}', tags => '{\"from\": \"sql\"}');"
      " COMMIT;",
      db_);
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  auto [jobs, answered_at] = poll.get();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].at("payload").at("n").as_int64(), 2);
  EXPECT_EQ(Str(jobs[0].at("tags").at("from")), "sql");
  EXPECT_LT(answered_at - committed_at, 1500ms);  // woken, not re-polled
  // The job is a job like any other: it completes through another node.
  auto done = Post(2, "/jobs/" + Str(jobs[0].at("id")) + "/complete",
                   json::object{{"worker_id", "w"}, {"lease_id", jobs[0].at("lease_id")}});
  EXPECT_EQ(done.status, 200) << done.raw.body;
  auto listed = Get(0, "/jobs?queue_name=in-tx");
  ASSERT_EQ(listed.status, 200) << listed.raw.body;
  EXPECT_EQ(listed.raw.body.find("\"n\":1"), std::string::npos) << listed.raw.body;
}

// Every node compares its clock with the database's (same machine here:
// within the bound) and says so in /health/ready and /metrics.
TEST_F(MultiNodeTest, EachNodeReportsItsClockAgainstTheDatabases) {
  for (int node = 0; node < kNodes; ++node) {
    JsonResponse ready;
    ASSERT_TRUE(WaitUntil(
        [&] {
          ready = Client(node).JsonRequest("GET", "/health/ready");
          return ready.status == 200 && ready.body.as_object().contains("clock");
        },
        10s))
        << ready.raw.body;
    EXPECT_EQ(Str(ready.body.at("clock")), "ok");
    EXPECT_LT(std::abs(ready.body.at("clock_skew_ms").as_int64()), 1000);
    EXPECT_NE(Client(node).Get("/metrics").body.find("\nredrive_clock_skew_seconds "),
              std::string::npos);
  }
}

// The default pool (no --db-pool-size) is the database's: each node runs its
// share of it, the pool divided by the live nodes, and a node that stops
// gives its share back to the others.
TEST_F(MultiNodeTest, TheDefaultPoolIsDividedAmongTheLiveNodes) {
  // The default pool: this machine's cores, 2 to 32 (serve_config.h).
  const int pool = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 2, 32);
  auto gauge = [&](int node, const std::string& name) -> long long {
    const std::string body = Client(node).Get("/metrics").body;
    const size_t at = body.find("\n" + name + " ");
    if (at == std::string::npos) return -1;
    return std::stoll(body.substr(at + name.size() + 2));
  };
  for (int node = 0; node < kNodes; ++node) {
    ASSERT_TRUE(WaitUntil([&] { return gauge(node, "redrive_db_nodes") == kNodes; }, 20s))
        << "node " << node << " counts " << gauge(node, "redrive_db_nodes");
    EXPECT_EQ(gauge(node, "redrive_db_write_share"), std::max(1, pool / kNodes)) << node;
  }
  ASSERT_EQ(nodes_[2]->Stop(), 0);
  for (int node = 0; node < 2; ++node) {
    ASSERT_TRUE(WaitUntil([&] { return gauge(node, "redrive_db_nodes") == 2; }, 20s))
        << "node " << node << " counts " << gauge(node, "redrive_db_nodes");
    EXPECT_EQ(gauge(node, "redrive_db_write_share"), std::max(1, pool / 2)) << node;
  }
}

TEST_F(MultiNodeTest, KillNineOfANodeLosesNothingAcknowledgedAndItsLeasesAreReclaimed) {
  // A job held through node 1 under a short lease when it dies.
  const std::string held_id = Enqueue(1, "victim", {{"max_retries", 3}});
  HttpClient c1 = Client(1);
  auto held = Claim(c1, "victim", "on-node-1", 1, 0, /*lease_secs=*/5);
  ASSERT_EQ(held.size(), 1u);

  // Enqueues through node 1 while it is killed: every 201 must survive.
  std::vector<std::string> acknowledged;
  std::atomic<bool> stop{false};
  std::thread producer([&] {
    HttpClient c = Client(1);
    c.set_timeout(2s);
    for (int i = 0; !stop.load() && i < 100000; ++i) {
      auto r = c.JsonRequest("POST", "/api/v1/jobs",
                             json::object{{"queue_name", "acked"}, {"payload", {{"i", i}}}});
      if (r.status == 201) acknowledged.push_back(Str(r.body.at("id")));
      if (r.status == 0) break;  // the node is gone
    }
  });
  ASSERT_TRUE(WaitUntil([&] { return acknowledged.size() >= 50 || stop.load(); }, 20s));
  nodes_[1]->Kill();
  stop = true;
  producer.join();
  ASSERT_GE(acknowledged.size(), 50u);

  for (const std::string& id : acknowledged) {
    const std::string s = Status(0, id);
    EXPECT_EQ(s, "pending") << id;
  }
  // The dead node's lease runs out and another node hands the job out again.
  HttpClient c2 = Client(2);
  bool reclaimed = false;
  const auto until = SteadyClock::now() + 20s;
  while (!reclaimed && SteadyClock::now() < until) {
    for (const auto& job : Claim(c2, "victim", "on-node-2", 1, 2000)) {
      reclaimed = Str(job.at("id")) == held_id;
    }
  }
  EXPECT_TRUE(reclaimed);
}

TEST_F(MultiNodeTest, AWebhookCreatedOnOneNodeGetsEveryNodesEventsOnce) {
  WebhookReceiver rx;
  auto created = Post(0, "/outgoing-webhooks",
                      json::object{{"name", "cluster"},
                                   {"url", rx.url()},
                                   {"events", json::array{"job.completed"}},
                                   {"secret", "s3cret-s3cret-s3cret"}});
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string webhook = Str(created.body.at("id"));

  // At once, jobs complete through every node.
  constexpr int kJobs = 12;
  std::set<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    const int node = i % kNodes;
    const std::string id = Enqueue(node, "hooked");
    HttpClient c = Client(node);
    auto jobs = Claim(c, "hooked", "w", 1, 1000);
    ASSERT_EQ(jobs.size(), 1u);
    auto r = c.JsonRequest("POST", "/api/v1/jobs/" + Str(jobs[0].at("id")) + "/complete",
                           json::object{{"worker_id", "w"}, {"lease_id", jobs[0].at("lease_id")}});
    ASSERT_EQ(r.status, 200) << r.raw.body;
    ids.insert(Str(jobs[0].at("id")));
  }
  ASSERT_TRUE(rx.WaitForRequests(kJobs, 30s));
  // Every delivery is recorded delivered: nothing is left to send, so the
  // receiver's count is final.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto d = Get(2, "/outgoing-webhooks/" + webhook + "/deliveries?status=pending");
        return d.status == 200 && d.body.is_array() && d.body.as_array().empty();
      },
      30s));
  std::map<std::string, int> per_job;
  for (const auto& req : rx.Requests()) {
    auto body = json::parse(req.body);
    ++per_job[Str(body.at("data").at("job_id"))];
  }
  EXPECT_EQ(per_job.size(), ids.size());
  for (const auto& [id, n] : per_job) {
    EXPECT_TRUE(ids.count(id)) << id;
    EXPECT_EQ(n, 1) << id;
  }
}

// The database stops under a running node: requests fail fast with 503
// instead of hanging, readiness says so, and once the database is back the
// node serves again by itself with nothing acknowledged lost.
TEST(PostgresOutageTest, ANodeAnswers503WhileTheDatabaseIsDownAndRecoversByItself) {
  auto cluster = testing::PgCluster::Start();  // its own: this test kills it
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  testing::PgCluster& pg = **cluster;
  ServerOptions o;
  o.store = pg.Url();
  ServerProcess node(o);
  ASSERT_TRUE(node.Start());
  HttpClient c = node.Client();
  c.set_timeout(20s);
  auto enqueue = [&] {
    return c.JsonRequest("POST", "/api/v1/jobs",
                         json::object{{"queue_name", "outage"}, {"payload", {{"n", 1}}}});
  };
  auto before = enqueue();
  ASSERT_EQ(before.status, 201) << before.raw.body;

  ASSERT_TRUE(pg.Kill().ok());
  const auto start = SteadyClock::now();
  auto during = enqueue();
  const auto took = SteadyClock::now() - start;
  EXPECT_EQ(during.status, 503) << during.raw.body;
  EXPECT_EQ(during.body.at("code"), "SERVICE_UNAVAILABLE") << during.raw.body;
  EXPECT_LT(took, 5s);
  EXPECT_EQ(c.Get("/health/ready").status, 503);

  ASSERT_TRUE(pg.Restart().ok());
  ASSERT_TRUE(WaitUntil([&] { return c.Get("/health/ready").status == 200; }, 20s));
  auto after = enqueue();
  EXPECT_EQ(after.status, 201) << after.raw.body;
  auto kept = c.JsonRequest("GET", "/api/v1/jobs/" + Str(before.body.at("id")));
  EXPECT_EQ(kept.status, 200) << kept.raw.body;
}

// Failover: a primary with a synchronous standby, the node on the
// multi-host URL. The primary is killed mid-load and the standby promoted:
// the node serves again within seconds, on the new primary, and every job
// it acknowledged (201) is there.
TEST(PostgresFailoverTest, APromotedSyncStandbyHasEveryAcknowledgedJob) {
  testing::PgClusterOptions primary_options;
  primary_options.settings = {"synchronous_standby_names=standby1"};
  auto primary = testing::PgCluster::Start(primary_options);
  ASSERT_TRUE(primary.ok()) << primary.status().ToString();
  auto standby = testing::PgCluster::StartStandby(**primary, "standby1");
  ASSERT_TRUE(standby.ok()) << standby.status().ToString();
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto r = (*primary)->Psql(
            "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'");
        return r.ok() && r->rfind("sync", 0) == 0;
      },
      30s))
      << "the standby never became synchronous";
  ASSERT_TRUE((*primary)->CreateDatabase("failover").ok());

  ServerOptions o;
  o.store = "postgresql://postgres@127.0.0.1:" + std::to_string((*primary)->port()) +
            ",127.0.0.1:" + std::to_string((*standby)->port()) +
            "/failover?target_session_attrs=read-write&connect_timeout=2";
  ServerProcess node(o);
  ASSERT_TRUE(node.Start());

  // A producer enqueues one job after the other and keeps the ids the node
  // acknowledged; the primary dies under it.
  std::mutex mu;
  std::vector<std::string> acknowledged;
  int refused = 0;
  std::atomic<bool> stop{false};
  std::atomic<SteadyClock::rep> last_ack{0};
  std::thread producer([&] {
    HttpClient c = node.Client();
    c.set_timeout(10s);
    for (int i = 0; !stop; ++i) {
      auto r = c.JsonRequest("POST", "/api/v1/jobs",
                             json::object{{"queue_name", "failover"}, {"payload", {{"n", i}}}});
      std::lock_guard<std::mutex> lock(mu);
      if (r.status == 201) {
        acknowledged.push_back(Str(r.body.at("id")));
        last_ack = SteadyClock::now().time_since_epoch().count();
      } else {
        ++refused;
        EXPECT_EQ(r.status, 503) << r.raw.body;  // never a hang, never another error
      }
    }
  });
  auto acked = [&] {
    std::lock_guard<std::mutex> lock(mu);
    return acknowledged.size();
  };
  ASSERT_TRUE(WaitUntil([&] { return acked() >= 50; }, 30s));
  ASSERT_TRUE((*primary)->Kill().ok());
  const size_t at_kill = acked();
  ASSERT_TRUE((*standby)->Promote().ok());
  const auto promoted_at = SteadyClock::now();
  ASSERT_TRUE(WaitUntil([&] { return acked() >= at_kill + 20; }, 30s))
      << "the node did not serve again after the promotion";
  const auto first_after = SteadyClock::time_point(SteadyClock::duration(last_ack.load()));
  stop = true;
  producer.join();
  EXPECT_LT(first_after - promoted_at, 15s);

  // Every acknowledged job is on the new primary, and it is a primary.
  HttpClient c = node.Client();
  for (const std::string& id : acknowledged) {
    auto r = c.JsonRequest("GET", "/api/v1/jobs/" + id);
    ASSERT_EQ(r.status, 200) << "acknowledged job " << id << " is gone: " << r.raw.body;
  }
  auto count = (*standby)->Psql("SELECT count(*) FROM redrive.jobs", "failover");
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_GE(std::stoul(*count), acknowledged.size());
  auto claim = c.JsonRequest("POST", "/api/v1/jobs/claim",
                             json::object{{"queue_name", "failover"}, {"worker_id", "w"}});
  ASSERT_EQ(claim.status, 200) << claim.raw.body;
  EXPECT_EQ(claim.body.at("jobs").as_array().size(), 1u);
  std::cout << "failover: " << acknowledged.size() << " acknowledged, " << refused
            << " answered 503 during the outage\n";
}

}  // namespace
}  // namespace redrive::e2e
