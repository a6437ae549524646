// PgReadTx: a read snapshot on a pooled connection, BEGIN ISOLATION LEVEL
// REPEATABLE READ READ ONLY: every read of it sees the database as of its
// first query, whatever commits meanwhile. Destruction ends it and returns
// the connection to the pool.
//
// Thread-safety: none; used by one thread. Must not outlive its store.
#pragma once

#include <memory>

#include "store/postgres/pg_pool.h"
#include "store/postgres/pg_reads.h"

namespace redrive::store::postgres {

// Holds the connection of a transaction; a base class so it is constructed
// before, and destroyed after, the PgReads that uses it.
struct PgConnectionHolder {
  explicit PgConnectionHolder(PooledConnection c) : held(std::move(c)) {}
  PooledConnection held;
};

class PgReadTx final : private PgConnectionHolder, public PgReads<ReadTx> {
 public:
  inline static constexpr char kBegin[] = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
  // REQUIRES: `conn` is inside a transaction begun with kBegin.
  explicit PgReadTx(PooledConnection conn)
      : PgConnectionHolder(std::move(conn)), PgReads(*held, /*locking=*/false) {}
  ~PgReadTx() override;
};

}  // namespace redrive::store::postgres
