// Maps SQLite result codes to Redrive Status values, in one place.
#pragma once

#include <sqlite3.h>

#include <string_view>

#include "core/status.h"

namespace redrive::store::sqlite {

// The Status for a failed SQLite call `rc` on `db` (may be null), prefixed
// with what was being done. Codes: constraint violations of a unique key are
// CONFLICT; a busy/locked database, I/O errors, a full disk and an unopenable
// or corrupt file are SERVICE_UNAVAILABLE (the store, not the request, is at
// fault); anything else (CHECK violations, misuse) is INTERNAL — a bug.
Status SqliteError(sqlite3* db, int rc, std::string_view context);

}  // namespace redrive::store::sqlite
