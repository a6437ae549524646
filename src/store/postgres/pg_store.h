// PgStore: the Store on PostgreSQL, for several Redrive nodes sharing one
// database. All its objects live in the schema `redrive`.
//
// Concurrency: many writers (WriteModel::kTransactionPerRequest): each
// WriteTx is one READ COMMITTED transaction on a connection of the write
// pool (pool_size connections at most), made safe against the others, here
// and on other nodes, by store.h's locking contract. Each ReadTx is a
// REPEATABLE READ READ ONLY snapshot on a connection of the read pool.
// A connection that breaks is closed and replaced on next use.
//
// Durability: every session runs with synchronous_commit=on, so
// WriteTx::Commit returns only after the commit record is flushed.
//
// Thread-safety: all methods are thread-safe. Every ReadTx and WriteTx must
// be destroyed before the store.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "core/limits.h"
#include "core/status.h"
#include "store/postgres/pg_pool.h"
#include "store/postgres/pg_write_health.h"
#include "store/store.h"

// Public: the app names these. The helpers live in redrive::store::postgres.
namespace redrive::store {

struct PgOptions {
  // Write transactions at once (StoreTraits::writer_connections).
  size_t pool_size = 16;
  // Read snapshots at once.
  size_t read_pool_size = 4;
  // A connection attempt (all hosts of a multi-host url) gives up after this.
  std::chrono::milliseconds connect_timeout{3000};
  // How long BeginRead/BeginWrite wait for a free connection of a full pool.
  std::chrono::milliseconds acquire_timeout{10000};
  // Readiness (Ping) fails while a COMMIT has waited longer than this
  // (pg_write_health.h).
  std::chrono::milliseconds commit_stall_after{5000};
  // The limits redrive.enqueue (transactional enqueue) applies: the
  // server's, so that a job enqueued in SQL passes the same checks.
  ServerLimits limits;
};

class PgStore final : public Store {
 public:
  // Connects to `url`: any libpq connection string or URI (postgres://...,
  // postgresql://..., host=... dbname=..., the multi-host form with
  // target_session_attrs=read-write). An unreachable server is UNAVAILABLE
  // within options.connect_timeout. Call Migrate() before anything else.
  static Result<std::unique_ptr<PgStore>> Open(const std::string& url, PgOptions options = {});
  ~PgStore() override;

  StoreTraits traits() const override {
    return {WriteModel::kTransactionPerRequest, options_.pool_size};
  }
  // LISTEN/NOTIFY wake-ups between the nodes sharing the database
  // (pg_wake_channel.h), on a connection of their own.
  std::unique_ptr<WakeChannel> NewWakeChannel() override;
  // Session advisory locks on a connection of its own (pg_leadership.h).
  Result<std::unique_ptr<Leadership>> NewLeadership(const std::string& node_id) override;
  // Creates or upgrades the schema; safe to run from many nodes at once.
  Status Migrate() override;
  Result<std::unique_ptr<ReadTx>> BeginRead() override;
  Result<std::unique_ptr<WriteTx>> BeginWrite() override;
  // A read, then whether writes commit: not while a commit stalls, nor
  // after a write failed because the database cannot write, until a commit
  // (Ping's own probe commit, if need be) succeeds again.
  Status Ping() override;
  Result<std::optional<Instant>> DatabaseNow() override;
  // ANALYZE of jobs and job_history once either has doubled since its
  // statistics were taken, past a floor (pg_planner_statistics.h), on a read connection
  // (outside any transaction): an ANALYZE of a large table takes a while,
  // and write connections are the scarce ones.
  Result<PlannerStatistics> RefreshPlannerStatistics() override;
  // "postgresql 15.18 on 127.0.0.1:5432/redrive (pool 16)".
  std::string Describe() const override;

 private:
  PgStore(std::string url, PgOptions options, std::string description);

  const std::string url_;
  const PgOptions options_;
  const std::string description_;
  postgres::PgWriteHealth write_health_;
  postgres::PgPool writers_;
  postgres::PgPool readers_;
};

}  // namespace redrive::store
