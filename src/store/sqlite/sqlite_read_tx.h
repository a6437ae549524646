// SqliteReadTx: a read snapshot on a pooled connection. BEGIN (deferred)
// starts it; in WAL mode the snapshot is fixed at the first read and sees
// every transaction committed before that, never a later one, while the
// writer goes on. Destruction ends the transaction and returns the
// connection to the pool.
//
// Thread-safety: none; used by one thread. Must not outlive its store.
#pragma once

#include <memory>

#include "store/sqlite/connection.h"
#include "store/sqlite/read_connection_pool.h"
#include "store/sqlite/sqlite_reads.h"

namespace redrive::store::sqlite {

class SqliteReadTx final : public SqliteReads<ReadTx> {
 public:
  static Result<std::unique_ptr<SqliteReadTx>> Begin(ReadConnectionPool& pool);
  ~SqliteReadTx() override;

 private:
  SqliteReadTx(std::unique_ptr<Connection> conn, ReadConnectionPool& pool)
      : SqliteReads(*conn), owned_(std::move(conn)), pool_(pool) {}

  std::unique_ptr<Connection> owned_;
  ReadConnectionPool& pool_;
};

}  // namespace redrive::store::sqlite
