// Two nodes on one database: two Engines over two SqliteStores opened on the
// same file (as two processes would), each with its own node id, sharing one
// manual clock. Every background duty runs on one node at a time, moves to
// the other when its leader stops (at once) or dies (within the lease ttl),
// and each webhook delivery is recorded once.
//
// What this found that one engine could not:
//   - Without leadership every node ran every duty: both reapers, both
//     schedulers, both dispatchers walked the same rows. SQLite's single
//     write lock and the guarded writes kept the data right, so no
//     single-engine test (and no data check) could tell; only asking each
//     node what it ran does (its counters, the redrive_duty_leader gauge).
//   - A delivery whose sender hung past its reservation was reserved and
//     sent again by the other node — expected, at-least-once — but the hung
//     attempt's late outcome was then recorded too, over the new attempt's
//     reservation: a late failure scheduled a retry (a third POST) under a
//     delivery another sender held. Reservation tokens make it record
//     nothing (ALateOutcomeOfAHungLeaderIsNotRecorded).
//   - A dead leader's duties wait for its lease to lapse: until then nobody
//     reaps (DutiesOfADeadLeaderMoveWhenItsLeaseLapses shows the wait).
//   - Each node's outbox knows the webhooks of its last subscription
//     refresh (every 5 s of wall time, on the dispatcher thread): events
//     caused on one node right after a webhook is created on another get no
//     delivery. These tests create webhooks before starting the second node.
// Wake-ups (long-poll claims, nudges of the loop and the dispatcher) are
// local to a node on SQLite; they are not tested here.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/clock.h"
#include "core/random.h"
#include "engine/engine.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kLoopDuties[] = {"scheduler",      "lease-reaper",   "deadline-sweep",
                                       "retention",      "worker-pruning", "delivery-retention",
                                       "audit-retention"};

// Answers 200 and counts POSTs by delivery id. With hold_first set, the first
// POST blocks until Release() (a sender hung on a slow receiver).
class CountingSender final : public WebhookSender {
 public:
  AttemptResult Send(const OutgoingPost& post, Instant) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++posts_[post.delivery_id];
    if (hold_first_ && !entered_) {
      entered_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
    }
    return {true, 200, std::nullopt, milliseconds(1)};
  }
  void HoldFirst() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_first_ = true;
  }
  void WaitEntered() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return entered_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  std::map<std::string, int> posts() {
    std::lock_guard<std::mutex> lock(mu_);
    return posts_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, int> posts_;
  bool hold_first_ = false;
  bool entered_ = false;
  bool released_ = false;
};

struct Node {
  std::unique_ptr<store::SqliteStore> store;
  std::unique_ptr<SystemRandom> random;
  std::shared_ptr<CountingSender> sender = std::make_shared<CountingSender>();
  std::unique_ptr<Engine> engine;
};

class TwoNodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("redrive-two-nodes-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override {
    for (Node* n : {&a_, &b_}) {
      n->engine.reset();
      n->store.reset();
    }
    ghost_.reset();
    ghost_store_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<store::SqliteStore> OpenStore() {
    store::SqliteOptions options;
    options.duty_lease_ttl = ttl_;
    auto s = store::SqliteStore::Open((dir_ / "shared.db").string(), options);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return nullptr;
    EXPECT_TRUE((*s)->Migrate().ok());
    return std::move(*s);
  }
  void StartNode(Node& n, const std::string& node_id, uint64_t seed) {
    n.store = OpenStore();
    ASSERT_NE(n.store, nullptr);
    n.random = std::make_unique<SystemRandom>(seed);
    EngineOptions options;
    options.node_id = node_id;
    options.max_idle = milliseconds(50);
    options.webhook_sender = n.sender;
    options.webhooks.run_threads = false;
    n.engine = std::make_unique<Engine>(*n.store, clock_, *n.random, options);
    ASSERT_TRUE(n.engine->Start().ok());
  }

  template <typename T, typename Method, typename... Args>
  static Result<T> Call(Engine& e, Method method, Args&&... args) {
    auto p = std::make_shared<std::promise<Result<T>>>();
    auto f = p->get_future();
    (e.*method)(std::forward<Args>(args)..., [p](Result<T> r) { p->set_value(std::move(r)); });
    return f.get();
  }
  static std::string Enqueue(Engine& e) {
    EnqueueParams p;
    p.queue_name = "q";
    p.payload_json = R"({"n":1})";
    auto r = Call<EnqueueResult>(e, &Engine::Enqueue, std::move(p));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->id : "";
  }
  static void ClaimOne(Engine& e, int lease_s) {
    ClaimParams p;
    p.queue_name = "q";
    p.worker_id = "w1";
    p.lease_duration = seconds(lease_s);
    auto r = Call<ClaimResult>(e, &Engine::Claim, std::move(p));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->jobs.size(), 1u);
  }
  static Job GetJob(Engine& e, const std::string& id) {
    auto r = Call<Job>(e, &Engine::GetJob, std::string(id));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Job{};
  }
  // event_type -> node_id of each history entry of the job, oldest first.
  static std::vector<std::pair<std::string, std::string>> HistoryNodes(Engine& e,
                                                                       const std::string& id) {
    auto h = Call<std::vector<HistoryEntry>>(e, &Engine::History, std::string(id));
    EXPECT_TRUE(h.ok());
    std::vector<std::pair<std::string, std::string>> out;
    for (const HistoryEntry& entry : *h) {
      out.emplace_back(entry.event_type, entry.node_id.value_or("(none)"));
    }
    return out;
  }
  static int LeaseExpiredEntries(Engine& e, const std::string& id) {
    auto h = Call<std::vector<HistoryEntry>>(e, &Engine::History, std::string(id));
    EXPECT_TRUE(h.ok());
    int n = 0;
    for (const HistoryEntry& entry : *h) n += entry.event_type == "lease_expired";
    return n;
  }
  // One sample of the engine's /metrics text; 0 when absent.
  static double Sample(Engine& e, const std::string& series) {
    auto text = Call<std::string>(e, &Engine::ScrapeMetrics);
    EXPECT_TRUE(text.ok());
    const size_t at = text->find("\n" + series + " ");
    if (at == std::string::npos) return 0;
    return std::stod(text->substr(at + series.size() + 2));
  }
  static double Leads(Engine& e, const std::string& duty) {
    return Sample(e, "redrive_duty_leader{duty=\"" + duty + "\"}");
  }
  static double LeaseExpiries(Engine& e) {
    return Sample(e, "redrive_lease_expiries_total{queue=\"q\"}");
  }
  // Polls `condition` (set by an engine thread) until it holds; no sleeps.
  static bool WaitUntil(const std::function<bool()>& condition) {
    const auto deadline = std::chrono::steady_clock::now() + seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (condition()) return true;
      std::this_thread::yield();
    }
    return condition();
  }
  Webhook CreateWebhook(Engine& e) {
    CreateWebhookParams p;
    p.name = "hook";
    p.url = "http://127.0.0.1:9/hook";
    p.events = {"job.created"};
    p.secret = "s3cret";
    auto r = Call<Webhook>(e, &Engine::CreateWebhook, std::move(p));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Webhook{};
  }
  std::vector<WebhookDelivery> Deliveries(Engine& e, const std::string& webhook_id) {
    ListDeliveriesParams f;
    f.webhook_id = webhook_id;
    f.limit = 100;
    auto r = Call<std::vector<WebhookDelivery>>(e, &Engine::ListDeliveries, f);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<WebhookDelivery>{};
  }

  std::filesystem::path dir_;
  // Long enough that a test's clock jumps never lapse a live leader's hold
  // (its loop renews on wall-clock wake-ups, racing the jump).
  milliseconds ttl_ = std::chrono::hours(1);
  ManualClock clock_;
  Node a_;
  Node b_;
  std::unique_ptr<store::SqliteStore> ghost_store_;
  std::unique_ptr<store::Leadership> ghost_;
};

// A claim that finds its queue empty lets the claims after it on its node
// park without a transaction, for EngineOptions::claim_known_empty_for (50
// ms), while nothing wakes the queue. Another node's commit does not wake
// this one on SQLite (nor on PostgreSQL before its notification arrives): a
// job it adds is taken by the first claim after that time, not by one
// during it. A claim that does not wait always looks.
TEST_F(TwoNodesTest, AnEmptyLookStandsForItsTimeAndAClaimThatDoesNotWaitAlwaysLooks) {
  StartNode(a_, "node-a", 1);
  StartNode(b_, "node-b", 2);
  auto claim = [&](milliseconds wait) {
    auto got = std::make_shared<std::promise<Result<ClaimResult>>>();
    ClaimParams p;
    p.queue_name = "q";
    p.worker_id = "w";
    p.wait = wait;
    a_.engine->Claim(std::move(p), [got](Result<ClaimResult> r) { got->set_value(std::move(r)); });
    return got->get_future();
  };
  auto parked = [&](size_t n) {
    return WaitUntil([&] { return a_.engine->parked_claims() == n; });
  };
  auto looked = claim(seconds(60));  // finds nothing: the look
  ASSERT_TRUE(parked(1));
  const std::string first = Enqueue(*b_.engine);
  auto on_the_look = claim(seconds(60));
  ASSERT_TRUE(parked(2));  // at once, without reading the job B just added
  EXPECT_EQ(on_the_look.wait_for(milliseconds(0)), std::future_status::timeout);
  auto now = claim(milliseconds(0));
  auto r = now.get();
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->jobs.size(), 1u);
  EXPECT_EQ(r->jobs[0].id, first);
  // The look is 50 ms old: the next claim reads the store again.
  const std::string second = Enqueue(*b_.engine);
  clock_.Advance(milliseconds(50));
  auto after = claim(seconds(60));
  auto r2 = after.get();
  ASSERT_TRUE(r2.ok());
  ASSERT_EQ(r2->jobs.size(), 1u);
  EXPECT_EQ(r2->jobs[0].id, second);
  EXPECT_EQ(a_.engine->parked_claims(), 2u);  // the two that parked still wait
}

TEST_F(TwoNodesTest, EachDutyRunsOnOneNodeAndMovesAtOnceWhenItsLeaderStops) {
  StartNode(a_, "node-a", 1);
  a_.engine->RunServicesOnce();  // node-a asks first: it leads every duty
  StartNode(b_, "node-b", 2);
  b_.engine->RunServicesOnce();
  for (const char* duty : kLoopDuties) {
    EXPECT_EQ(Leads(*a_.engine, duty), 1) << duty;
    EXPECT_EQ(Leads(*b_.engine, duty), 0) << duty;
  }

  // A worker on node-b holds a job and goes silent past its lease.
  const std::string first = Enqueue(*b_.engine);
  ClaimOne(*b_.engine, 30);
  clock_.Advance(seconds(31));
  EXPECT_EQ(b_.engine->RunServicesOnce(), 0);  // not node-b's duty
  a_.engine->RunServicesOnce();                // (or node-a's loop got there first)
  EXPECT_EQ(GetJob(*b_.engine, first).lease_expiries, 1);
  EXPECT_EQ(LeaseExpiredEntries(*b_.engine, first), 1);
  EXPECT_EQ(LeaseExpiries(*a_.engine), 1);
  EXPECT_EQ(LeaseExpiries(*b_.engine), 0);

  // node-a stops cleanly: node-b takes over at its next pass, same instant.
  a_.engine->Stop();
  const std::string second = Enqueue(*b_.engine);
  ClaimOne(*b_.engine, 30);
  clock_.Advance(seconds(31));
  b_.engine->RunServicesOnce();
  for (const char* duty : kLoopDuties) EXPECT_EQ(Leads(*b_.engine, duty), 1) << duty;
  EXPECT_TRUE(WaitUntil([&] { return GetJob(*b_.engine, second).lease_expiries == 1; }));
  EXPECT_EQ(LeaseExpiredEntries(*b_.engine, second), 1);
  EXPECT_EQ(LeaseExpiries(*b_.engine), 1);
}

// Each history entry names the node that wrote it: a request's node, or for
// a duty's change (here the lease reaper) the node leading the duty.
TEST_F(TwoNodesTest, EachHistoryEntryNamesTheNodeThatMadeTheChange) {
  StartNode(a_, "node-a", 1);
  a_.engine->RunServicesOnce();  // node-a leads every duty
  StartNode(b_, "node-b", 2);
  const std::string id = Enqueue(*a_.engine);
  ClaimOne(*b_.engine, 30);
  clock_.Advance(seconds(31));
  a_.engine->RunServicesOnce();
  ASSERT_TRUE(WaitUntil([&] { return GetJob(*b_.engine, id).lease_expiries == 1; }));
  using Entry = std::pair<std::string, std::string>;
  EXPECT_EQ(HistoryNodes(*b_.engine, id),
            (std::vector<Entry>{
                {"created", "node-a"}, {"processing", "node-b"}, {"lease_expired", "node-a"}}));
}

// Each node samples its own counters into the store; either node's
// throughput history is the sum. A node restarted within an interval adds
// only what it did since (its counters start again from a baseline).
TEST_F(TwoNodesTest, TheThroughputHistoryIsTheSumOverTheNodes) {
  clock_.Set(InstantFromMicros(1'800'000'000'000'000) + seconds(3));  // 3 s past a boundary
  StartNode(a_, "node-a", 1);
  StartNode(b_, "node-b", 2);
  a_.engine->RunServicesOnce();  // the baselines (unless their loops took them already)
  b_.engine->RunServicesOnce();
  for (int i = 0; i < 2; ++i) Enqueue(*a_.engine);
  for (int i = 0; i < 3; ++i) Enqueue(*b_.engine);
  clock_.Advance(seconds(10));
  a_.engine->RunServicesOnce();
  b_.engine->RunServicesOnce();

  a_.engine.reset();  // node-a restarts, same id
  StartNode(a_, "node-a", 3);
  a_.engine->RunServicesOnce();
  Enqueue(*a_.engine);
  clock_.Advance(seconds(10));
  a_.engine->RunServicesOnce();
  b_.engine->RunServicesOnce();

  const Instant first = InstantFromMicros(1'800'000'000'000'000) + seconds(10);
  for (Engine* e : {a_.engine.get(), b_.engine.get()}) {
    auto points = Call<std::vector<ThroughputPoint>>(*e, &Engine::Throughput,
                                                     std::optional<std::string>("q"));
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    ASSERT_EQ(points->size(), 2u);
    EXPECT_EQ((*points)[0].at, first);
    EXPECT_EQ((*points)[0].counts, (JobCounts{5, 0, 0, 0}));
    EXPECT_EQ((*points)[1].at, first + seconds(10));
    EXPECT_EQ((*points)[1].counts, (JobCounts{1, 0, 0, 0}));
  }
}

TEST_F(TwoNodesTest, DutiesOfADeadLeaderMoveWhenItsLeaseLapses) {
  ttl_ = seconds(5);
  // A leader killed mid-run: its holds are in the file, nobody renews them.
  ghost_store_ = OpenStore();
  ASSERT_NE(ghost_store_, nullptr);
  auto ghost = ghost_store_->NewLeadership("node-dead");
  ASSERT_TRUE(ghost.ok());
  ghost_ = std::move(*ghost);
  const Instant died = clock_.Now();
  for (const char* duty : kLoopDuties) ASSERT_TRUE(*ghost_->Hold(duty, died));

  StartNode(b_, "node-b", 2);
  const std::string id = Enqueue(*b_.engine);
  ClaimOne(*b_.engine, 2);
  clock_.Set(died + milliseconds(4900));
  EXPECT_EQ(b_.engine->RunServicesOnce(), 0);
  EXPECT_EQ(Leads(*b_.engine, "lease-reaper"), 0);
  EXPECT_EQ(GetJob(*b_.engine, id).status, JobStatus::kProcessing);  // expired, not yet reaped

  clock_.Set(died + seconds(5));
  b_.engine->RunServicesOnce();
  for (const char* duty : kLoopDuties) EXPECT_EQ(Leads(*b_.engine, duty), 1) << duty;
  EXPECT_TRUE(WaitUntil([&] { return GetJob(*b_.engine, id).lease_expiries == 1; }));
  EXPECT_EQ(LeaseExpiredEntries(*b_.engine, id), 1);
}

TEST_F(TwoNodesTest, EveryDeliveryIsSentByTheDispatchLeaderOnce) {
  StartNode(a_, "node-a", 1);
  const Webhook hook = CreateWebhook(*a_.engine);
  StartNode(b_, "node-b", 2);  // after the webhook: its outbox knows it
  for (int i = 0; i < 3; ++i) {
    Enqueue(*a_.engine);
    Enqueue(*b_.engine);
  }
  EXPECT_EQ(a_.engine->RunWebhooksOnce(), 6);  // node-a asked first: it dispatches
  EXPECT_EQ(b_.engine->RunWebhooksOnce(), 0);
  EXPECT_EQ(Leads(*b_.engine, "webhook-dispatch"), 0);
  auto delivered = Deliveries(*b_.engine, hook.id);
  ASSERT_EQ(delivered.size(), 6u);
  for (const WebhookDelivery& d : delivered) {
    EXPECT_EQ(d.status, DeliveryStatus::kDelivered);
    EXPECT_EQ(d.attempts, 1);
    EXPECT_EQ(a_.sender->posts()[d.id], 1);
  }
  EXPECT_TRUE(b_.sender->posts().empty());

  // node-a stops: node-b dispatches what comes next.
  a_.engine->Stop();
  Enqueue(*b_.engine);
  EXPECT_EQ(b_.engine->RunWebhooksOnce(), 1);
  EXPECT_EQ(Leads(*b_.engine, "webhook-dispatch"), 1);
  EXPECT_EQ(b_.sender->posts().size(), 1u);
}

TEST_F(TwoNodesTest, ALateOutcomeOfAHungLeaderIsNotRecorded) {
  ttl_ = seconds(5);
  StartNode(a_, "node-a", 1);
  const Webhook hook = CreateWebhook(*a_.engine);
  StartNode(b_, "node-b", 2);
  Enqueue(*a_.engine);
  a_.sender->HoldFirst();
  // node-a reserves the delivery and hangs in its POST (on its own thread).
  std::thread hung([&] { a_.engine->RunWebhooksOnce(); });
  a_.sender->WaitEntered();

  // Past both the reservation (60 s) and node-a's dispatch hold: node-b
  // takes the duty, reserves the delivery again and sends it.
  clock_.Advance(seconds(61));
  EXPECT_EQ(b_.engine->RunWebhooksOnce(), 1);
  auto ds = Deliveries(*b_.engine, hook.id);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].status, DeliveryStatus::kDelivered);
  EXPECT_EQ(ds[0].attempts, 1);

  // node-a's POST returns at last: it was sent twice (at least once), but
  // recorded once — node-a's outcome finds node-b's reservation and is dropped.
  a_.sender->Release();
  hung.join();
  ds = Deliveries(*b_.engine, hook.id);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].attempts, 1);
  EXPECT_EQ(ds[0].status, DeliveryStatus::kDelivered);
  EXPECT_EQ(a_.sender->posts()[ds[0].id] + b_.sender->posts()[ds[0].id], 2);
  EXPECT_EQ(Sample(*a_.engine, "redrive_webhook_deliveries_total{outcome=\"delivered\"}"), 0);
  EXPECT_EQ(Sample(*b_.engine, "redrive_webhook_deliveries_total{outcome=\"delivered\"}"), 1);
}

TEST_F(TwoNodesTest, ASchedulesTimeFiresOnceWithTwoEngines) {
  StartNode(a_, "node-a", 1);
  StartNode(b_, "node-b", 2);
  clock_.Set(InstantFromMicros(1'800'000'000'000'000));  // 2027-01-15T08:00:00Z
  CreateScheduleParams p;
  p.name = "every minute";
  p.cron_expression = "* * * * *";
  p.queue_name = "q";
  auto s = Call<Schedule>(*b_.engine, &Engine::CreateSchedule, std::move(p));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  for (int minute = 1; minute <= 3; ++minute) {
    clock_.Set(InstantFromMicros(1'800'000'000'000'000 + minute * 60'000'000LL));
    // Both nodes' services, twice each, besides their own loops.
    for (int i = 0; i < 2; ++i) {
      a_.engine->RunServicesOnce();
      b_.engine->RunServicesOnce();
    }
  }
  EXPECT_EQ(Leads(*a_.engine, "schedules") + Leads(*b_.engine, "schedules"), 1);
  ListJobsParams list;
  list.queue_name = "q";
  list.limit = 100;
  auto jobs = Call<std::vector<Job>>(*a_.engine, &Engine::ListJobs, list);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_EQ(jobs->size(), 3u);
  auto history =
      Call<std::vector<ScheduleHistoryEntry>>(*a_.engine, &Engine::ScheduleHistory, s->id, 100, 0);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 3u);
  auto after = Call<Schedule>(*a_.engine, &Engine::GetSchedule, s->id);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->run_count, 3);
}

}  // namespace
}  // namespace redrive::engine
