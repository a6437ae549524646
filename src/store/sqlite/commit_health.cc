#include "store/sqlite/commit_health.h"

#include <sqlite3.h>

namespace redrive::store::sqlite {
namespace {

bool IsFsyncFailure(int rc) { return rc == SQLITE_IOERR_FSYNC || rc == SQLITE_IOERR_DIR_FSYNC; }

}  // namespace

Status CommitHealth::Record(int rc, std::string_view path, std::string_view message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (rc == SQLITE_OK) {
    failing_.clear();
    return Status::Ok();
  }
  const std::string what = std::string(path) + ": " + std::string(message);
  if (IsFsyncFailure(rc) && stopped_.empty()) {
    stopped_ = "writes are stopped: an fsync failed (" + what +
               "), so what is on disk is unknown (the operating system may have dropped the "
               "unwritten data); restart the server once the disk is fixed";
  }
  if (!stopped_.empty()) return Status::Unavailable(stopped_);
  failing_ = "the latest commit failed: " + what;
  return Status::Unavailable(what);
}

Status CommitHealth::Check() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!stopped_.empty()) return Status::Unavailable(stopped_);
  if (!failing_.empty()) return Status::Unavailable(failing_);
  return Status::Ok();
}

Status CommitHealth::CheckWritable() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!stopped_.empty()) return Status::Unavailable(stopped_);
  return Status::Ok();
}

bool CommitHealth::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !stopped_.empty();
}

}  // namespace redrive::store::sqlite
