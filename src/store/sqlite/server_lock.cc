#include "store/sqlite/server_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace redrive::store::sqlite {
namespace {

// The pid the holder wrote into the lock file, for the refusal message.
std::string ReadHolder(int fd) {
  char buf[32] = {};
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return "";
  std::string pid(buf, static_cast<size_t>(n));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : "";
}

}  // namespace

Result<std::unique_ptr<ServerLock>> ServerLock::Acquire(const std::string& db_path) {
  std::string lock_path = db_path + ".lock";
  int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::Unavailable("cannot open the lock file " + lock_path + ": " +
                               std::strerror(errno));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder = err == EWOULDBLOCK ? ReadHolder(fd) : "";
    close(fd);
    if (err != EWOULDBLOCK) {
      return Status::Unavailable("cannot lock " + lock_path + ": " + std::strerror(err));
    }
    return Status::Unavailable(
        "another redrive server" + (holder.empty() ? "" : " (pid " + holder + ")") +
        " is already serving " + db_path + " (it holds " + lock_path +
        "); one server per SQLite file: stop that one first, or give this one another "
        "--store (several nodes on one database need PostgreSQL)");
  }
  // Who holds it, for the next one refused. Best effort: the lock is what counts.
  std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
  return std::unique_ptr<ServerLock>(new ServerLock(std::move(lock_path), fd));
}

ServerLock::~ServerLock() { close(fd_); }

}  // namespace redrive::store::sqlite
