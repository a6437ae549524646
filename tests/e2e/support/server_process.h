// Runs the real `redrive` binary (REDRIVE_BINARY) as a child process for
// end-to-end tests:
//
//   ServerProcess server;                     // temp data dir, port 0
//   ASSERT_TRUE(server.Start());
//   HttpClient client = server.Client();
//   EXPECT_EQ(client.Get("/health").status, 200);
//   ASSERT_TRUE(server.Restart());            // same data dir, new port
//   EXPECT_EQ(server.Stop(), 0);              // SIGTERM, graceful exit
//
// The child's stderr (its log) goes to <data dir>/server-stderr.log, kept
// across restarts; Stderr() returns it and failed starts include it. The
// child dies with the test process (PR_SET_PDEATHSIG), so a crashing test
// leaves no server behind. REDRIVE_* variables of the test's environment are
// not passed on: tests say what they want via flags or `env`.
//
// The store: REDRIVE_TEST_STORE=postgres in the test's environment runs
// every server whose options name no store on PostgreSQL — a fresh database
// per ServerProcess (kept across restarts) on the process's shared throwaway
// cluster (support/pg_cluster.h). CTest runs the e2e, SDK and CLI suites
// both ways.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "e2e/support/http_client.h"
#include "e2e/support/temp_dir.h"

namespace redrive::e2e {

// The store the suites run on: "sqlite" (default) or "postgres"
// (REDRIVE_TEST_STORE).
std::string TestStoreKind();
bool TestingOnPostgres();

// A fresh database on the shared test cluster, as a --store URL.
std::string NewPostgresStoreUrl();

struct ServerOptions {
  std::string listen = "127.0.0.1:0";
  // Empty: sqlite:<data dir>/redrive.db, or a fresh PostgreSQL database
  // (see TestStoreKind).
  std::string store;
  // Appended after `serve --listen … --store …`, e.g. {"--api-key", "admin:k"}.
  std::vector<std::string> extra_args;
  // Added to the child's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::chrono::milliseconds start_timeout{30'000};
};

// How a process ended: its exit code, or 128 + the signal that killed it.
struct ExitResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `redrive <args…>` to completion (killed after `timeout`) and captures
// its output: for commands that should exit, like a refused start.
ExitResult RunRedrive(const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::seconds(30),
                      const std::vector<std::pair<std::string, std::string>>& env = {});

class ServerProcess {
 public:
  explicit ServerProcess(ServerOptions options = {});
  ~ServerProcess();  // Kill()s a server still running
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Starts the server and waits for its "listening on" line. On failure the
  // message carries the exit status and the server's stderr.
  ::testing::AssertionResult Start();
  // SIGTERM, then waits up to `timeout` (SIGKILL after). Returns the exit
  // code (128 + signal if killed); -1 if not running.
  int Stop(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // SIGKILL: a crash. Returns 128 + SIGKILL; -1 if not running.
  int Kill();
  // Stop() (if running) and Start() again on the same data dir. The port
  // changes unless options().listen names a fixed one.
  ::testing::AssertionResult Restart();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  std::string base_url() const;  // "http://127.0.0.1:PORT"
  // A client for this server (its current port).
  HttpClient Client() const { return HttpClient(host_, port_); }

  const std::filesystem::path& data_dir() const { return dir_.path(); }
  // The SQLite file, when the server runs on the default SQLite store.
  std::filesystem::path db_path() const { return dir_.path() / "redrive.db"; }
  // The --store value the server runs with.
  const std::string& store_url() const { return store_url_; }
  // The server's stderr so far, across restarts.
  std::string Stderr() const;
  // Changes take effect at the next Start()/Restart().
  ServerOptions& options() { return options_; }

 private:
  int Wait(std::chrono::milliseconds timeout);

  ServerOptions options_;
  TempDir dir_;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;  // kept open: a closed pipe would fail the server's writes
  std::string host_;
  uint16_t port_ = 0;
  std::string store_url_;  // chosen at the first Start()
};

}  // namespace redrive::e2e
