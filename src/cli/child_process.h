// Runs one external command (no shell) with its stdin fed from memory and its
// stdout and stderr captured, without deadlock: all three pipes are serviced
// by one poll() loop, so a child that writes a lot before reading its input
// (or never reads it) cannot block us or itself.
//
//   ChildSpec spec{.argv = {"./handler.sh"}, .stdin_data = payload};
//   auto child = ChildProcess::Spawn(spec);
//   if (!child.ok()) ...;
//   (*child)->WaitFor(deadline, [&] { return token.cancelled(); });
//   if (!(*child)->exited()) (*child)->Terminate(std::chrono::seconds(3));
//
// The child runs in its own process group, so signals reach everything it
// started (a shell script's `sleep`), and a Ctrl-C at the terminal reaches
// only `redrive work`, which then lets the child finish (graceful stop).
// Thread-safety: one ChildProcess is used by one thread; many may run at
// once (spawning uses posix_spawn and close-on-exec pipes, safe alongside
// other threads).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace redrive::cli {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  // Added to (or replacing in) this process's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::string stdin_data;         // written, then stdin is closed
  size_t stdout_limit = 1 << 20;  // bytes kept from the start of stdout
  size_t stderr_tail = 2048;      // bytes kept from the end of stderr
};

class ChildProcess {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // Starts the child. Fails (INTERNAL_ERROR) when the pipes cannot be made;
  // a command that cannot be executed is a child exiting 127, like a shell.
  static Result<std::unique_ptr<ChildProcess>> Spawn(const ChildSpec& spec);
  ~ChildProcess();  // SIGKILLs and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Services the pipes until the child exits, `deadline` passes, or `stop`
  // (polled every ~50 ms, may be empty) returns true. Returns exited().
  bool WaitFor(SteadyTime deadline, const std::function<bool()>& stop = {});
  // SIGTERM to the child's process group, up to `grace` to exit, then
  // SIGKILL. Returns once the child is reaped.
  void Terminate(std::chrono::milliseconds grace);
  // Sends `signal` to the child's process group.
  void Signal(int signal);

  pid_t pid() const { return pid_; }
  bool exited() const { return exited_; }
  // REQUIRES: exited(). Exit code, or -1 when killed by a signal.
  int exit_code() const { return exit_code_; }
  int term_signal() const { return term_signal_; }  // 0 unless killed by a signal
  const std::string& out() const { return out_; }
  bool out_truncated() const { return out_truncated_; }
  const std::string& err_tail() const { return err_; }

 private:
  explicit ChildProcess(const ChildSpec& spec) : spec_(spec) {}
  Status Start();
  void Pump(int timeout_ms);
  void WriteStdin();
  void ReadInto(int& fd, bool is_stdout);
  bool Reap(bool block);
  void CloseAll();

  ChildSpec spec_;
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  // Readable once the child has exited (Linux 5.3+; -1 without): polled with
  // the pipes, so an exit is seen at once, not at the next ~50 ms poll.
  int pid_fd_ = -1;
  size_t in_written_ = 0;
  bool exited_ = false;
  int exit_code_ = -1;
  int term_signal_ = 0;
  std::string out_;
  bool out_truncated_ = false;
  std::string err_;
};

}  // namespace redrive::cli
