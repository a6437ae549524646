#include "store/sqlite/sqlite_read_tx.h"

namespace redrive::store::sqlite {

Result<std::unique_ptr<SqliteReadTx>> SqliteReadTx::Begin(ReadConnectionPool& pool) {
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, pool.Acquire());
  REDRIVE_RETURN_IF_ERROR(conn->Exec("BEGIN"));
  return std::unique_ptr<SqliteReadTx>(new SqliteReadTx(std::move(conn), pool));
}

SqliteReadTx::~SqliteReadTx() {
  // A read transaction has nothing to commit; COMMIT just ends it. If that
  // fails the pool refuses the connection (still in a transaction) and it
  // is closed.
  if (owned_->InTransaction()) owned_->Exec("COMMIT");
  pool_.Release(std::move(owned_));
}

}  // namespace redrive::store::sqlite
