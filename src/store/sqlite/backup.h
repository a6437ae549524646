// A consistent copy of a SQLite store while a server may be running on it:
// `redrive backup`. It reads through SQLite's online backup API on a
// connection of its own, in one step, i.e. from one read snapshot (in WAL
// mode readers never block the server's writer, nor it them), so the copy is
// the store as of one commit. It never takes the server's lock on
// `<db>.lock` (sqlite/server_lock.h), which only keeps a second server away.
// While the copy runs, the server's checkpoints cannot pass the snapshot: the
// -wal file grows until the copy is done.
//
// The copy is written to `<dest>.partial`, switched from WAL to a plain
// rollback journal (one self-contained file; a server started on it goes
// back to WAL), checked with PRAGMA quick_check, fsync'd, and only then
// renamed to `dest`: a backup that failed half-way never looks like one.
#pragma once

#include <string>

#include "core/status.h"

namespace redrive::store::sqlite {

enum class BackupKind {
  // SQLite's online backup API: every page as it is, free pages included.
  kPages,
  // VACUUM INTO: the rows rewritten into pages without free space (a store
  // keeps the pages its deleted jobs freed), slower and the same snapshot
  // guarantee; `redrive backup --compact`.
  kCompact,
};

// Copies the database at `db_path` (which must exist) to the new file
// `dest_path`. CONFLICT if `dest_path` exists (a backup never overwrites);
// SERVICE_UNAVAILABLE naming the file for everything else.
Status BackupDatabase(const std::string& db_path, const std::string& dest_path,
                      BackupKind kind = BackupKind::kPages);

}  // namespace redrive::store::sqlite
