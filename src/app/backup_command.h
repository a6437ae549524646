// `redrive backup DEST`: a consistent copy of a SQLite store, taken while a
// server may be running on it (store/sqlite/backup.h). It opens the file
// directly, not through a server, so it lives beside `serve`.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace redrive::app {

struct BackupFlags {
  std::string store = "sqlite:./redrive-data/redrive.db";  // as serve's --store
  std::string dest;
  bool compact = false;  // VACUUM INTO instead of a page copy
};

// Registers the subcommand on `app`; `flags` must outlive parsing.
CLI::App* AddBackupCommand(CLI::App& app, BackupFlags& flags);

// Exit code: 0 copied, 1 the copy failed, 2 a usage error (e.g. a
// PostgreSQL store, or DEST exists).
int RunBackup(const BackupFlags& flags);

}  // namespace redrive::app
