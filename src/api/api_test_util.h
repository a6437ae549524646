// Test fixture for the API: a real Engine over a SqliteStore in a temp dir,
// a manual clock and fixed randomness, and helpers that call Api::Handle and
// wait for its one answer. No sockets.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <string>

#include "api/api.h"
#include "core/clock.h"
#include "core/random.h"
#include "engine/engine.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::api::testing {

struct Reply {
  int status = 0;
  boost::json::value json;  // null when the body is empty
  Response raw;

  const boost::json::value& operator[](std::string_view key) const {
    return json.as_object().at(key);
  }
  std::string Code() const { return std::string(json.at("code").as_string()); }
  std::string Field() const { return std::string(json.at("details").at("field").as_string()); }
};

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("redrive-api-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(dir_);
    auto s = store::SqliteStore::Open((dir_ / "redrive.db").string(), store_options_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    ASSERT_TRUE(store_->Migrate().ok());
    engine_ = std::make_unique<engine::Engine>(*store_, clock_, random_);
    ASSERT_TRUE(engine_->Start().ok());
    api_ = std::make_unique<Api>(*engine_, options_);
  }
  void TearDown() override {
    api_.reset();
    engine_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  // Rebuilds the Api with other options (keys, limits) over the same engine.
  void Reconfigure(ApiOptions options) {
    options_ = std::move(options);
    api_ = std::make_unique<Api>(*engine_, options_);
  }

  Reply Send(Request request) {
    auto promise = std::make_shared<std::promise<Response>>();
    auto future = promise->get_future();
    api_->Handle(std::move(request), [promise](Response r) { promise->set_value(std::move(r)); });
    if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      ADD_FAILURE() << "no answer within 10 s";
      return {};
    }
    Reply reply;
    reply.raw = future.get();
    reply.status = reply.raw.status;
    if (!reply.raw.body.empty()) reply.json = boost::json::parse(reply.raw.body);
    if (reply.status != 204) {
      EXPECT_EQ(reply.raw.content_type, "application/json") << reply.raw.body;
    }
    return reply;
  }
  Reply Do(std::string method, std::string target, std::string body = "", std::string key = "") {
    Request r;
    r.method = std::move(method);
    r.target = std::move(target);
    r.body = std::move(body);
    if (!r.body.empty()) r.headers["content-type"] = "application/json";
    if (!key.empty()) r.headers["authorization"] = "Bearer " + key;
    return Send(std::move(r));
  }
  Reply Get(std::string target, std::string key = "") {
    return Do("GET", std::move(target), "", std::move(key));
  }
  Reply Post(std::string target, std::string body, std::string key = "") {
    return Do("POST", std::move(target), std::move(body), std::move(key));
  }

  // Enqueues {"n":1} to `queue`; returns the id.
  std::string Enqueue(const std::string& queue = "q", const std::string& extra = "") {
    Reply r =
        Post("/api/v1/jobs", R"({"queue_name":")" + queue + R"(","payload":{"n":1})" + extra + "}");
    EXPECT_EQ(r.status, 201) << r.raw.body;
    return r.status == 201 ? std::string(r["id"].as_string()) : "";
  }
  // Claims one job of `queue` as worker w1; returns the claimed item.
  boost::json::object ClaimOne(const std::string& queue = "q") {
    Reply r = Post("/api/v1/jobs/claim", R"({"queue_name":")" + queue + R"(","worker_id":"w1"})");
    EXPECT_EQ(r.status, 200) << r.raw.body;
    const auto& jobs = r["jobs"].as_array();
    EXPECT_EQ(jobs.size(), 1u);
    return jobs.empty() ? boost::json::object() : jobs[0].as_object();
  }
  static std::string Str(const boost::json::value& v) { return std::string(v.as_string()); }

  static inline int counter_ = 0;
  std::filesystem::path dir_;
  ManualClock clock_;
  // Seeded, not FixedRandom: job and lease ids draw on the same Random, and
  // a fixed value would give every job of one millisecond the same id. Tests
  // that check retry times enqueue with jitter_ms 0.
  SystemRandom random_{42};
  ApiOptions options_;
  store::SqliteOptions store_options_;  // set before ApiTest::SetUp to change them
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<Api> api_;
};

}  // namespace redrive::api::testing
