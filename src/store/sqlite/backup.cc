#include "store/sqlite/backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "store/sqlite/connection.h"
#include "store/sqlite/sqlite_error.h"

namespace redrive::store::sqlite {
namespace {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, CloseDb>;

Status Fsync(const std::string& path, int flags) {
  int fd = open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Status::Unavailable("cannot open " + path + ": " + std::strerror(errno));
  const int rc = fsync(fd);
  const int err = errno;
  close(fd);
  if (rc != 0) return Status::Unavailable("cannot fsync " + path + ": " + std::strerror(err));
  return Status::Ok();
}

// Copies every page of `source` into the new file `partial`.
Status CopyPages(Connection& source, const std::string& partial) {
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(partial.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE, nullptr);
  DbHandle dest(raw);
  if (rc != SQLITE_OK) return SqliteError(dest.get(), rc, "cannot create " + partial);
  sqlite3_backup* backup = sqlite3_backup_init(dest.get(), "main", source.db(), "main");
  if (backup == nullptr) {
    return SqliteError(dest.get(), sqlite3_errcode(dest.get()), "cannot start the backup");
  }
  // -1: every page in one step, i.e. from one read snapshot of the source.
  rc = sqlite3_backup_step(backup, -1);
  const int finish = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) return SqliteError(dest.get(), rc, "backup");
  if (finish != SQLITE_OK) return SqliteError(dest.get(), finish, "backup");
  return Status::Ok();
}

// Writes the rows of `source` into the new file `partial` (VACUUM INTO, one
// read transaction of the source: one snapshot, like CopyPages).
Status CopyCompact(Connection& source, const std::string& partial) {
  // VACUUM INTO writes only the new file, but SQLite refuses it on a
  // query_only connection.
  REDRIVE_RETURN_IF_ERROR(source.Exec("PRAGMA query_only=OFF"));
  REDRIVE_ASSIGN_OR_RETURN(Statement vacuum, source.Prepare("VACUUM INTO ?1"));
  vacuum.Bind(1, partial);
  Status st = vacuum.Run();
  if (!st.ok()) return Status::Unavailable("VACUUM INTO " + partial + ": " + st.message());
  return Status::Ok();
}

// Leaves the copy at `partial` a rollback-journal database and checks it.
Status FinishCopy(const std::string& partial) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(partial.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_EXRESCODE,
                           nullptr);
  DbHandle dest(raw);
  if (rc != SQLITE_OK) return SqliteError(dest.get(), rc, "cannot open " + partial);
  char* error = nullptr;
  rc = sqlite3_exec(dest.get(), "PRAGMA journal_mode=DELETE", nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string why = error ? error : "";
    sqlite3_free(error);
    return Status::Unavailable("cannot leave WAL mode in " + partial + ": " + why);
  }
  sqlite3_stmt* check = nullptr;
  rc = sqlite3_prepare_v2(dest.get(), "PRAGMA quick_check", -1, &check, nullptr);
  if (rc != SQLITE_OK) return SqliteError(dest.get(), rc, "quick_check of the copy");
  std::string verdict;
  if (sqlite3_step(check) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(check, 0);
    verdict = text ? reinterpret_cast<const char*>(text) : "";
  }
  sqlite3_finalize(check);
  if (verdict != "ok") {
    return Status::Unavailable("the copy failed PRAGMA quick_check: " + verdict);
  }
  return Status::Ok();
}

}  // namespace

Status BackupDatabase(const std::string& db_path, const std::string& dest_path, BackupKind kind) {
  std::error_code ec;
  if (std::filesystem::exists(dest_path, ec)) {
    return Status::Conflict(dest_path + " already exists; a backup never overwrites a file");
  }
  if (!std::filesystem::is_regular_file(db_path, ec)) {
    return Status::Unavailable("no database file at " + db_path);
  }
  // A reader connection, like the server's own readers: it refuses writes
  // (query_only) and a file that is not a database in WAL mode.
  ConnectionOptions options;
  options.writer = false;
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> source, Connection::Open(db_path, options));

  const std::string partial = dest_path + ".partial";
  std::filesystem::remove(partial, ec);  // left by a backup that died; ours to replace
  Status st =
      kind == BackupKind::kCompact ? CopyCompact(*source, partial) : CopyPages(*source, partial);
  source.reset();  // the copy's snapshot ends here
  if (st.ok()) st = FinishCopy(partial);
  if (st.ok()) st = Fsync(partial, O_RDONLY);
  if (!st.ok()) {
    std::filesystem::remove(partial, ec);
    return st;
  }
  // link(), not rename(): it refuses to replace a file that appeared meanwhile.
  if (link(partial.c_str(), dest_path.c_str()) != 0) {
    const int err = errno;
    std::filesystem::remove(partial, ec);
    if (err == EEXIST) {
      return Status::Conflict(dest_path + " already exists; a backup never overwrites a file");
    }
    return Status::Unavailable("cannot create " + dest_path + ": " + std::strerror(err));
  }
  std::filesystem::remove(partial, ec);
  std::filesystem::path dir = std::filesystem::path(dest_path).parent_path();
  return Fsync(dir.empty() ? std::string(".") : dir.string(), O_RDONLY | O_DIRECTORY);
}

}  // namespace redrive::store::sqlite
