// Test fixture for the engine: a real SqliteStore in a temp dir, a manual
// clock and fixed randomness; helpers that turn the engine's callbacks into
// plain return values, and waits for engine observables (never a sleep).
// With pooled_ set (EngineByExecutorTest runs a suite both ways) the engine
// runs on a FaultStore over the SQLite store, which reports
// kTransactionPerRequest: the engine writes through its PooledExecutor.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <ostream>
#include <string>
#include <thread>

#include "core/clock.h"
#include "core/random.h"
#include "engine/engine.h"
#include "engine/fault_store_test_util.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine::testing {

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("redrive-engine-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(dir_);
    auto s = store::SqliteStore::Open((dir_ / "redrive.db").string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    ASSERT_TRUE(store_->Migrate().ok());
    fault_store_ = std::make_unique<FaultStore>(*store_);
    StartEngine();
  }
  void TearDown() override {
    engine_.reset();
    fault_store_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void StartEngine(EngineOptions options = {}) {
    engine_.reset();
    options.max_idle = std::chrono::milliseconds(50);
    engine_ = std::make_unique<Engine>(engine_store(), clock_, random_, options);
    ASSERT_TRUE(engine_->Start().ok());
  }

  // Calls engine->method(args..., callback) and waits for the callback.
  template <typename T, typename Method, typename... Args>
  Result<T> Call(Method method, Args&&... args) {
    auto p = std::make_shared<std::promise<Result<T>>>();
    auto f = p->get_future();
    ((*engine_).*method)(std::forward<Args>(args)...,
                         [p](Result<T> r) { p->set_value(std::move(r)); });
    return f.get();
  }
  template <typename Method, typename... Args>
  Status CallStatus(Method method, Args&&... args) {
    auto p = std::make_shared<std::promise<Status>>();
    auto f = p->get_future();
    ((*engine_).*method)(std::forward<Args>(args)...,
                         [p](Status s) { p->set_value(std::move(s)); });
    return f.get();
  }

  std::string Enqueue(const std::string& queue, EnqueueParams p = {}) {
    p.queue_name = queue;
    if (p.payload_json.empty()) p.payload_json = R"({"n":1})";
    auto r = Call<EnqueueResult>(&Engine::Enqueue, std::move(p));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->id : "";
  }
  std::vector<Job> Claim(const std::string& queue, int limit = 1, int lease_s = 30,
                         const std::string& worker = "w1") {
    ClaimParams p;
    p.queue_name = queue;
    p.worker_id = worker;
    p.limit = limit;
    p.lease_duration = std::chrono::seconds(lease_s);
    auto r = Call<ClaimResult>(&Engine::Claim, std::move(p));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->jobs : std::vector<Job>{};
  }
  // Enqueues a job with no retries, claims and fails it with `error`: a
  // dead job's id.
  std::string EnqueueDead(const std::string& queue, const std::string& error = "x") {
    EnqueueParams p;
    p.max_retries = 0;
    const std::string id = Enqueue(queue, p);
    auto jobs = Claim(queue);
    EXPECT_EQ(jobs.size(), 1u);
    if (jobs.empty()) return id;
    auto r = Call<FailResult>(&Engine::Fail, FailParams{id, "w1", *jobs[0].lease_id, error});
    EXPECT_TRUE(r.ok() && r->job.status == JobStatus::kDeadletter) << r.status().ToString();
    return id;
  }
  // A claim of one job of `queue` for `worker` that waits up to `wait`.
  static ClaimParams LongPoll(const std::string& queue, const std::string& worker,
                              std::chrono::milliseconds wait) {
    ClaimParams p;
    p.queue_name = queue;
    p.worker_id = worker;
    p.wait = wait;
    return p;
  }
  // Starts a claim (a long-poll when p.wait > 0); its answer comes in the
  // future. The promise outlives a failed test (Stop answers it later).
  std::future<Result<ClaimResult>> StartClaim(ClaimParams p) {
    auto got = std::make_shared<std::promise<Result<ClaimResult>>>();
    auto f = got->get_future();
    engine_->Claim(std::move(p), [got](Result<ClaimResult> r) { got->set_value(std::move(r)); });
    return f;
  }
  // Polls `condition` (an engine observable set by another thread) until it
  // holds or `timeout` passes; then checks it once more.
  static bool WaitUntil(const std::function<bool()>& condition,
                        std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (condition()) return true;
      std::this_thread::yield();
    }
    return condition();
  }
  // Waits until `n` long-poll claims are parked in the engine.
  bool WaitParked(size_t n) {
    return WaitUntil([&] { return engine_->parked_claims() == n; });
  }

  // GET /metrics as the engine renders it.
  std::string Scrape() {
    auto r = Call<std::string>(&Engine::ScrapeMetrics);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : "";
  }
  // The value of one sample line ("name{labels} value") of `text`; 0 if
  // absent (a series nothing has touched yet).
  static double Sample(const std::string& text, const std::string& series) {
    const size_t at = text.find("\n" + series + " ");
    if (at == std::string::npos) return 0;
    return std::stod(text.substr(at + series.size() + 2));
  }

  Job Get(const std::string& id) {
    auto r = Call<Job>(&Engine::GetJob, std::string(id));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Job{};
  }

  // The store the engine runs on.
  store::Store& engine_store() {
    return pooled_ ? static_cast<store::Store&>(*fault_store_) : *store_;
  }

  static inline int counter_ = 0;
  bool pooled_ = false;  // set before SetUp()
  std::filesystem::path dir_;
  ManualClock clock_;
  SystemRandom random_{42};  // tests that check exact times set jitter to 0
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<FaultStore> fault_store_;  // over store_
  std::unique_ptr<Engine> engine_;
};

// Which write executor the engine runs on.
enum class Executor { kGroupCommit, kPooled };

inline const char* ExecutorName(Executor e) {
  return e == Executor::kPooled ? "Pooled" : "GroupCommit";
}
inline std::string ExecutorTestName(const ::testing::TestParamInfo<Executor>& info) {
  return ExecutorName(info.param);
}
inline void PrintTo(Executor e, std::ostream* os) { *os << ExecutorName(e); }

// EngineTest once per executor: TEST_P, then
// INSTANTIATE_TEST_SUITE_P(Executors, Suite, kBothExecutors, ExecutorTestName).
class EngineByExecutorTest : public EngineTest, public ::testing::WithParamInterface<Executor> {
 protected:
  void SetUp() override {
    pooled_ = GetParam() == Executor::kPooled;
    EngineTest::SetUp();
  }
};

inline const auto kBothExecutors = ::testing::Values(Executor::kGroupCommit, Executor::kPooled);

}  // namespace redrive::engine::testing
