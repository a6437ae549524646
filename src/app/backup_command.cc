#include "app/backup_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "server/serve_config.h"
#include "store/sqlite/backup.h"

namespace redrive::app {

CLI::App* AddBackupCommand(CLI::App& app, BackupFlags& flags) {
  CLI::App* backup = app.add_subcommand(
      "backup", "Copy a SQLite store to a new file, safely while a server runs on it");
  backup
      ->add_option("--store", flags.store,
                   "The store to copy: sqlite:PATH, as given to serve (PostgreSQL: use pg_dump)")
      ->envname("REDRIVE_STORE")
      ->capture_default_str();
  backup->add_option("DEST", flags.dest, "The new file (never overwritten)")->required();
  backup->add_flag("--compact", flags.compact,
                   "Rewrite the rows into a file without the free pages that deleted jobs left "
                   "(VACUUM INTO): smaller, slower to take");
  backup->footer(
      "The copy is one commit's state of the store, checked (PRAGMA quick_check) and fsync'd "
      "before it appears at DEST.\nRestore: stop the server, replace the store's file with "
      "the copy, delete the old file's -wal and -shm (they would be replayed onto the copy), "
      "start the server.");
  return backup;
}

int RunBackup(const BackupFlags& flags) {
  Result<server::StoreUrl> store = server::ParseStoreUrl(flags.store);
  if (!store.ok()) {
    std::cerr << "redrive: " << store.status().message() << "\n";
    return 2;
  }
  if (store->kind != server::StoreUrl::Kind::kSqlite) {
    std::cerr << "redrive: backup copies SQLite stores; back up PostgreSQL with pg_dump "
                 "(or your provider's snapshots)\n";
    return 2;
  }
  Status st = store::sqlite::BackupDatabase(
      store->location, flags.dest,
      flags.compact ? store::sqlite::BackupKind::kCompact : store::sqlite::BackupKind::kPages);
  if (!st.ok()) {
    std::cerr << "redrive: backup of " << store->location << " failed: " << st.message() << "\n";
    return st.code() == ErrorCode::kConflict ? 2 : 1;
  }
  std::cout << "backed up " << store->location << " to " << flags.dest << "\n";
  return 0;
}

}  // namespace redrive::app
