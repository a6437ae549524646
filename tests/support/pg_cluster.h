// A throwaway PostgreSQL cluster for tests: initdb into a fresh temporary
// directory, the server on 127.0.0.1 at a free port with fsync=on, stopped
// by its PID. It never touches a system cluster.
//
// When the tests run as root the cluster runs as the `postgres` user (the
// server refuses root): the data directory is given to that user and the
// server process drops to it before exec. The server is its own process
// group, so Kill() takes the postmaster and every backend at once (a machine
// that died), and it gets SIGINT (fast shutdown) if the thread that started
// it dies, so a crashed test binary leaves no server behind.
//
// The binaries are PostgreSQL 15's (Debian's postgresql-15, which
// scripts/install-deps.sh installs), or those in $REDRIVE_PG_BINDIR.
//
// Needs no libpq: databases are made with psql, so any test (the e2e suites
// too) can use it.
//
// Thread-safety: none; use a cluster from one thread (Shared() is safe to
// call from several).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace redrive::testing {

struct PgClusterOptions {
  // Extra server settings, as "name=value" (passed as -c name=value).
  std::vector<std::string> settings;
};

class PgCluster {
 public:
  // Creates and starts a fresh cluster; UNAVAILABLE (with the server's log)
  // if it cannot.
  static Result<std::unique_ptr<PgCluster>> Start(PgClusterOptions options = {});
  // One cluster for every test of this process: started on first use,
  // stopped at exit. Throws std::runtime_error if it cannot start (gtest
  // reports it as the calling test's failure).
  static PgCluster& Shared();
  // A hot standby of `primary`, streaming from it as `application_name`
  // (pg_basebackup -R into a fresh directory, its own free port, the same
  // settings). For a synchronous standby, start the primary with
  // "synchronous_standby_names=NAME": its commits then wait for this one.
  static Result<std::unique_ptr<PgCluster>> StartStandby(const PgCluster& primary,
                                                         const std::string& application_name,
                                                         PgClusterOptions options = {});

  ~PgCluster();  // stops the server by its PID and removes the directory
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  // postgresql://postgres@127.0.0.1:PORT/DBNAME
  std::string Url(const std::string& dbname = "postgres") const;

  // A fresh empty database; `name` must be a plain identifier.
  Status CreateDatabase(const std::string& name);
  // A fresh database with a name no other call of this process used.
  Result<std::string> CreateUniqueDatabase(const std::string& prefix = "t");
  // Runs `sql` with psql on `dbname` (stops at the first error); returns
  // what it printed, unaligned and tuples only (-At).
  Result<std::string> Psql(const std::string& sql, const std::string& dbname = "postgres");

  // Fast shutdown (SIGINT), waiting until the server exited.
  Status Stop();
  // Starts the stopped (or killed) server again: same data, same port.
  Status Restart();
  // SIGKILL to the postmaster and all its backends, waiting until gone.
  Status Kill();
  // A standby becomes a primary (pg_ctl promote), waiting until it takes writes.
  Status Promote();

 private:
  PgCluster() = default;
  // A cluster object with its temporary directory (given to the server
  // user) and binaries; no data directory yet.
  static Result<std::unique_ptr<PgCluster>> Prepare(PgClusterOptions options);
  Status InitDb();
  Status Launch();
  Status WaitReady();

  PgClusterOptions options_;
  std::filesystem::path bindir_;
  std::filesystem::path root_;      // the temporary directory
  std::filesystem::path data_dir_;  // root_/data
  int port_ = 0;
  pid_t pid_ = -1;
  int unique_ = 0;
};

}  // namespace redrive::testing
