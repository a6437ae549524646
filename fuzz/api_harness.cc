#include "api_harness.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/limits.h"
#include "core/random.h"
#include "engine/engine.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::fuzz {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Die(std::string_view what, const std::string& detail) {
  std::fprintf(stderr, "fuzz: %.*s: %s\n", static_cast<int>(what.size()), what.data(),
               detail.c_str());
  std::abort();
}

fs::path TempRoot() {
  std::error_code ec;
  if (fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path();
}

fs::path& DataDir() {
  static fs::path dir;
  return dir;
}

// Removes the folders of earlier runs that died (a crash or a timeout ends
// a run without its atexit handlers).
void RemoveDeadRunsFolders(const fs::path& root) {
  std::error_code ec;
  constexpr std::string_view kPrefix = "redrive-fuzz-";
  for (const fs::directory_entry& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kPrefix)) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + kPrefix.size()));
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

void RemoveDataDir() {
  std::error_code ec;
  fs::remove_all(DataDir(), ec);
}

engine::Engine*& RunningEngine() {
  static engine::Engine* engine = nullptr;
  return engine;
}

// At exit, before the statics made before it are destroyed (spdlog's among
// them), the engine's threads stop: they must not outlive what they use.
void StopAtExit() {
  if (RunningEngine() != nullptr) RunningEngine()->Stop();
  RemoveDataDir();
}

bool HasForbiddenByte(std::string_view s) {
  return s.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

// One answer, handed from the engine's thread to the fuzzer's.
struct Slot {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<api::Response> response;
  int answers = 0;
};

}  // namespace

struct ApiHarness::State {
  ManualClock clock;
  SystemRandom random{1};
  std::unique_ptr<store::SqliteStore> store;
  std::unique_ptr<engine::Engine> engine;
  std::unique_ptr<api::Api> open_api;   // no keys
  std::unique_ptr<api::Api> keyed_api;  // admin, worker and viewer keys
};

ApiHarness& ApiHarness::Get() {
  static ApiHarness* harness = new ApiHarness();
  return *harness;
}

ApiHarness::ApiHarness() : state_(new State) {
  // Made now, spdlog's registry outlives StopAtExit (registered later); the
  // engine's info lines would only slow the runs.
  spdlog::set_level(spdlog::level::warn);
  RemoveDeadRunsFolders(TempRoot());
  DataDir() = TempRoot() / ("redrive-fuzz-" + std::to_string(::getpid()));
  RemoveDataDir();
  auto store = store::SqliteStore::Open((DataDir() / "redrive.db").string());
  if (!store.ok()) Die("cannot open the store", store.status().ToString());
  state_->store = std::move(store).value();
  if (Status st = state_->store->Migrate(); !st.ok()) Die("cannot migrate", st.ToString());
  state_->engine = std::make_unique<engine::Engine>(*state_->store, state_->clock, state_->random);
  if (Status st = state_->engine->Start(); !st.ok()) Die("cannot start the engine", st.ToString());
  RunningEngine() = state_->engine.get();
  std::atexit(StopAtExit);

  api::ApiOptions open;
  open.clock = &state_->clock;
  state_->open_api = std::make_unique<api::Api>(*state_->engine, open);
  api::ApiOptions keyed = open;
  keyed.keys = {{api::Role::kAdmin, std::string(kAdminKey)},
                {api::Role::kWorker, std::string(kWorkerKey)},
                {api::Role::kViewer, std::string(kViewerKey)}};
  state_->keyed_api = std::make_unique<api::Api>(*state_->engine, keyed);
}

api::Api& ApiHarness::ApiFor(const api::Request& request) {
  return request.header("authorization") ? *state_->keyed_api : *state_->open_api;
}

api::Response ApiHarness::Send(api::Request request) {
  state_->clock.Advance(std::chrono::seconds(1));
  auto slot = std::make_shared<Slot>();
  ApiFor(request).Handle(std::move(request), [slot](api::Response response) {
    std::lock_guard lock(slot->mu);
    if (++slot->answers > 1) Die("Handle answered twice", response.body);
    slot->response = std::move(response);
    slot->cv.notify_all();
  });
  std::unique_lock lock(slot->mu);
  // Writes answer after their commit, on the committer's thread. A claim that
  // found nothing parks until its wait (at most kMaxWaitMs of engine time)
  // ends: the clock is moved past it, and the engine expires it.
  while (!slot->cv.wait_for(lock, std::chrono::milliseconds(2),
                            [&] { return slot->response.has_value(); })) {
    if (state_->engine->parked_claims() == 0) continue;
    lock.unlock();
    state_->clock.Advance(std::chrono::milliseconds(kMaxWaitMs + 1000));
    state_->engine->RunServicesOnce();
    lock.lock();
  }
  api::Response response = std::move(*slot->response);
  lock.unlock();
  CheckResponse(response, "Handle");
  return response;
}

void CheckResponse(const api::Response& response, std::string_view what) {
  const std::string detail = std::string(what) + " answered " + std::to_string(response.status) +
                             " " + response.content_type + ": " + response.body.substr(0, 2000);
  if (response.status < 100 || response.status > 599) Die("status out of range", detail);
  if (response.status >= 500 && response.status != 503) Die("server error", detail);
  if (HasForbiddenByte(response.content_type)) Die("bad Content-Type", detail);
  for (const auto& [name, value] : response.headers) {
    if (name.empty() || HasForbiddenByte(name) || HasForbiddenByte(value)) {
      Die("bad header " + name, detail);
    }
  }
  if ((response.status == 204 || response.status == 304) && !response.body.empty()) {
    Die("a body on 204/304", detail);
  }
  if (response.content_type.starts_with("application/json") && !response.body.empty()) {
    boost::json::parse_options options;
    options.max_depth = 4 * kMaxJsonDepth;
    boost::system::error_code ec;
    boost::json::parse(response.body, ec, {}, options);
    if (ec) Die("JSON body does not parse (" + ec.message() + ")", detail);
  }
}

}  // namespace redrive::fuzz
