// PgPool: a bounded pool of PgConnections to one database. At most
// `capacity` connections exist at once; Acquire reuses an idle one, connects
// a new one while under capacity, or waits for one to be released. A
// connection given back unhealthy (lost, or still inside a transaction) is
// closed, and the next Acquire connects a fresh one: a server restart costs
// the requests that were running, not the pool.
//
// Thread-safety: all methods are thread-safe. Every PooledConnection must be
// destroyed before the pool.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/postgres/pg_connection.h"

namespace redrive::store::postgres {

class PgPool;

// A connection on loan from a PgPool; given back when destroyed.
class PooledConnection {
 public:
  PooledConnection(PgPool* pool, std::unique_ptr<PgConnection> conn)
      : pool_(pool), conn_(std::move(conn)) {}
  PooledConnection(PooledConnection&& o) noexcept = default;
  PooledConnection& operator=(PooledConnection&&) = delete;
  ~PooledConnection();

  PgConnection& operator*() const { return *conn_; }
  PgConnection* operator->() const { return conn_.get(); }

 private:
  PgPool* pool_;
  std::unique_ptr<PgConnection> conn_;
};

class PgPool {
 public:
  PgPool(std::string url, size_t capacity, PgConnectOptions connect,
         std::chrono::milliseconds acquire_timeout);
  ~PgPool();

  // An idle or new connection; UNAVAILABLE if none can be connected, or if
  // all `capacity` stay busy for acquire_timeout.
  Result<PooledConnection> Acquire();
  // Adds an already connected connection to the idle ones (Open's first).
  void AddIdle(std::unique_ptr<PgConnection> conn);

  size_t capacity() const { return capacity_; }
  // Connections open now (idle or on loan).
  size_t open() const;

 private:
  friend class PooledConnection;
  void Release(std::unique_ptr<PgConnection> conn);

  const std::string url_;
  const size_t capacity_;
  const PgConnectOptions connect_;
  const std::chrono::milliseconds acquire_timeout_;
  mutable std::mutex mu_;
  std::condition_variable released_;
  std::vector<std::unique_ptr<PgConnection>> idle_;  // guarded by mu_
  size_t open_ = 0;                                  // guarded by mu_
};

}  // namespace redrive::store::postgres
