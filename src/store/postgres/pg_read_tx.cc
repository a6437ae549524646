#include "store/postgres/pg_read_tx.h"

namespace redrive::store::postgres {

PgReadTx::~PgReadTx() {
  // Nothing to keep: ending it only releases the snapshot. If this fails
  // the connection is still in a transaction, and the pool closes it.
  if (held->healthy() && held->InTransaction()) (void)held->Exec("ROLLBACK");
}

}  // namespace redrive::store::postgres
