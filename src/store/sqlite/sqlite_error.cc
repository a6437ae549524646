#include "store/sqlite/sqlite_error.h"

#include <string>

namespace redrive::store::sqlite {

Status SqliteError(sqlite3* db, int rc, std::string_view context) {
  std::string message(context);
  message += ": ";
  // sqlite3_errmsg describes the most recent failure on `db`, which is more
  // specific than sqlite3_errstr (e.g. which constraint failed).
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return Status::Conflict(std::move(message));
    default:
      break;
  }
  switch (rc & 0xff) {  // the primary code of an extended result code
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_PROTOCOL:
      return Status::Unavailable(std::move(message));
    default:
      return Status::Internal(std::move(message));
  }
}

}  // namespace redrive::store::sqlite
