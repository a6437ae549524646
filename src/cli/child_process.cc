#include "cli/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace redrive::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;

std::vector<std::string> ChildEnvironment(const ChildSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool overridden = false;
    for (const auto& [name, value] : spec.env) {
      overridden =
          overridden || (entry.size() > name.size() && entry.substr(0, name.size()) == name &&
                         entry[name.size()] == '=');
    }
    if (!overridden) env.emplace_back(entry);
  }
  for (const auto& [name, value] : spec.env) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Attributes for the child: its own process group, no blocked signals (the
// worker blocks SIGTERM/SIGINT in its threads to sigwait them), and default
// dispositions for signals we ignore (SIGPIPE), which exec would otherwise
// pass on.
void InitAttributes(posix_spawnattr_t* attr) {
  posix_spawnattr_init(attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(attr, &none);
  posix_spawnattr_setsigdefault(attr, &defaults);
  posix_spawnattr_setpgroup(attr, 0);
  posix_spawnattr_setflags(attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

}  // namespace

Result<std::unique_ptr<ChildProcess>> ChildProcess::Spawn(const ChildSpec& spec) {
  if (spec.argv.empty()) return Status::Internal("no command to run");
  std::unique_ptr<ChildProcess> child(new ChildProcess(spec));
  Status started = child->Start();
  if (!started.ok()) return started;
  return child;
}

Status ChildProcess::Start() {
  // Close-on-exec pipes: another thread spawning at the same moment must not
  // inherit our ends, or our child's EOF would never arrive.
  int pipes[3][2];
  for (int i = 0; i < 3; ++i) {
    if (pipe2(pipes[i], O_CLOEXEC) != 0) {
      Status failed = Status::Internal(std::string("pipe: ") + strerror(errno));
      for (int j = 0; j < i; ++j) {  // the pipes made before this one
        close(pipes[j][0]);
        close(pipes[j][1]);
      }
      return failed;
    }
  }
  int* in = pipes[0];
  int* out = pipes[1];
  int* err = pipes[2];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  InitAttributes(&attr);
  std::vector<std::string> argv_strings = spec_.argv;
  std::vector<std::string> env_strings = ChildEnvironment(spec_);
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<char*> envp = Pointers(env_strings);
  int rc = posix_spawnp(&pid_, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  for (int fd : {in_fd_, out_fd_, err_fd_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (rc != 0) {
    // Like a shell: "command not found" is exit 127 with the reason on stderr.
    pid_ = -1;
    CloseAll();
    exited_ = true;
    exit_code_ = 127;
    err_ = spec_.argv[0] + ": " + strerror(rc);
  } else {
#ifdef SYS_pidfd_open
    pid_fd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));  // close-on-exec
#endif
  }
  if (spec_.stdin_data.empty()) CloseFd(in_fd_);
  return Status::Ok();
}

ChildProcess::~ChildProcess() {
  if (!exited_ && pid_ > 0) {
    kill(-pid_, SIGKILL);
    Reap(true);
  }
  CloseAll();
  CloseFd(pid_fd_);
}

void ChildProcess::CloseAll() {
  CloseFd(in_fd_);
  CloseFd(out_fd_);
  CloseFd(err_fd_);
}

void ChildProcess::WriteStdin() {
  while (in_fd_ >= 0 && in_written_ < spec_.stdin_data.size()) {
    ssize_t n =
        write(in_fd_, spec_.stdin_data.data() + in_written_, spec_.stdin_data.size() - in_written_);
    if (n > 0) {
      in_written_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    break;  // EPIPE: the child does not want its input; not an error for us
  }
  CloseFd(in_fd_);
}

void ChildProcess::ReadInto(int& fd, bool is_stdout) {
  char buf[16384];
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      CloseFd(fd);
      return;
    }
    std::string_view chunk(buf, static_cast<size_t>(n));
    if (is_stdout) {
      size_t room = spec_.stdout_limit - std::min(spec_.stdout_limit, out_.size());
      if (chunk.size() > room) out_truncated_ = true;
      out_.append(chunk.substr(0, room));
    } else {
      err_.append(chunk);
      if (err_.size() > spec_.stderr_tail) err_.erase(0, err_.size() - spec_.stderr_tail);
    }
  }
}

void ChildProcess::Pump(int timeout_ms) {
  pollfd fds[4];
  nfds_t count = 0;
  if (in_fd_ >= 0) fds[count++] = {in_fd_, POLLOUT, 0};
  if (out_fd_ >= 0) fds[count++] = {out_fd_, POLLIN, 0};
  if (err_fd_ >= 0) fds[count++] = {err_fd_, POLLIN, 0};
  // A child's pipes close as it exits, a moment before it can be reaped:
  // without its pid fd, that moment would cost a nap.
  if (pid_fd_ >= 0 && !exited_) fds[count++] = {pid_fd_, POLLIN, 0};
  if (count == 0) {
    // Pipes closed but the child lives on: nothing to poll, just nap.
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return;
  }
  if (poll(fds, count, timeout_ms) <= 0) return;
  for (nfds_t i = 0; i < count; ++i) {
    if (fds[i].revents == 0) continue;
    if (fds[i].fd == in_fd_)
      WriteStdin();
    else if (fds[i].fd == out_fd_)
      ReadInto(out_fd_, true);
    else if (fds[i].fd == err_fd_)
      ReadInto(err_fd_, false);
  }
}

bool ChildProcess::Reap(bool block) {
  if (exited_ || pid_ <= 0) return true;
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r != pid_) return false;
  exited_ = true;
  if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) term_signal_ = WTERMSIG(status);
  return true;
}

bool ChildProcess::WaitFor(SteadyTime deadline, const std::function<bool()>& stop) {
  while (!exited_) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0 || (stop && stop())) break;
    Pump(static_cast<int>(std::min<long long>(left.count(), 50)));
    Reap(false);
  }
  if (exited_) {
    // Output written just before exiting is still in the pipes. Read what is
    // there, but do not wait for EOF: a grandchild may hold the pipes open.
    if (out_fd_ >= 0) ReadInto(out_fd_, true);
    if (err_fd_ >= 0) ReadInto(err_fd_, false);
    CloseAll();
  }
  return exited_;
}

void ChildProcess::Signal(int signal) {
  if (!exited_ && pid_ > 0) kill(-pid_, signal);
}

void ChildProcess::Terminate(std::chrono::milliseconds grace) {
  Signal(SIGTERM);
  if (WaitFor(SteadyClock::now() + grace)) return;
  Signal(SIGKILL);
  Reap(true);
  CloseAll();
}

}  // namespace redrive::cli
