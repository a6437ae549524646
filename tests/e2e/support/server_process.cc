#include "e2e/support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "e2e/support/sanitizer_reports.h"
#include "support/pg_cluster.h"

extern char** environ;

namespace redrive::e2e {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;
using SteadyClock = std::chrono::steady_clock;

// The child's environment: ours without REDRIVE_* (hermetic tests), plus `extra`.
std::vector<std::string> ChildEnvironment(const Env& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "REDRIVE_", 8) != 0) env.emplace_back(*e);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// fork + exec of REDRIVE_BINARY with stdout/stderr on the given fds. Returns
// the pid, or -1.
pid_t Spawn(const std::vector<std::string>& args, const Env& env, int stdout_fd, int stderr_fd) {
  std::vector<std::string> argv_strings{REDRIVE_BINARY};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = ChildEnvironment(env);
  // Built before fork: the child may only make async-signal-safe calls.
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<char*> envp = Pointers(env_strings);
  pid_t parent = getpid();

  pid_t pid = fork();
  if (pid != 0) return pid;
  // Child.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before prctl
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  int devnull = open("/dev/null", O_RDONLY);
  dup2(devnull, 0);
  dup2(stdout_fd, 1);
  dup2(stderr_fd, 2);
  execve(argv[0], argv.data(), envp.data());
  _exit(127);
}

int DecodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Waits for `pid` up to `timeout`, then SIGKILLs it. Returns the exit code.
int WaitOrKill(pid_t pid, std::chrono::milliseconds timeout) {
  auto deadline = SteadyClock::now() + timeout;
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return DecodeStatus(status);
    if (r < 0 && errno != EINTR) return -1;
    if (SteadyClock::now() >= deadline) break;
    // A child exit is not pollable without pidfds; 5 ms polling is plenty.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return DecodeStatus(status);
}

// Appends what is readable on `fd` within `wait_ms` to `out`; false on EOF.
bool ReadSome(int fd, int wait_ms, std::string* out) {
  pollfd pfd{fd, POLLIN, 0};
  int ready = poll(&pfd, 1, wait_ms);
  if (ready <= 0) return ready == 0 || errno == EINTR;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n <= 0) return n < 0 && errno == EINTR;
  out->append(buf, static_cast<size_t>(n));
  return true;
}

}  // namespace

ExitResult RunRedrive(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                      const Env& env) {
  ExitResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  pid_t pid = Spawn(args, env, out_pipe[1], err_pipe[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }
  auto deadline = SteadyClock::now() + timeout;
  bool out_open = true, err_open = true;
  while ((out_open || err_open) && SteadyClock::now() < deadline) {
    if (out_open) out_open = ReadSome(out_pipe[0], err_open ? 0 : 50, &result.out);
    if (err_open) err_open = ReadSome(err_pipe[0], 50, &result.err);
  }
  close(out_pipe[0]);
  close(err_pipe[0]);
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  result.exit_code = WaitOrKill(pid, std::max(left, std::chrono::milliseconds(0)));
  ExpectNoSanitizerReport(pid, "redrive " + (args.empty() ? std::string() : args.front()));
  return result;
}

std::string TestStoreKind() {
  const char* kind = std::getenv("REDRIVE_TEST_STORE");
  return kind && *kind ? kind : "sqlite";
}

bool TestingOnPostgres() { return TestStoreKind() == "postgres"; }

std::string NewPostgresStoreUrl() {
  testing::PgCluster& pg = testing::PgCluster::Shared();
  auto db = pg.CreateUniqueDatabase("e2e");
  if (!db.ok()) throw std::runtime_error(db.status().ToString());
  return pg.Url(*db);
}

ServerProcess::ServerProcess(ServerOptions options) : options_(std::move(options)) {}

ServerProcess::~ServerProcess() {
  if (running()) Kill();
}

std::string ServerProcess::base_url() const {
  return "http://" + host_ + ":" + std::to_string(port_);
}

std::string ServerProcess::Stderr() const {
  std::ifstream in(dir_.path() / "server-stderr.log");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

::testing::AssertionResult ServerProcess::Start() {
  if (running()) return ::testing::AssertionFailure() << "server already running";
  if (!options_.store.empty()) {
    store_url_ = options_.store;
  } else if (store_url_.empty()) {
    store_url_ = TestingOnPostgres() ? NewPostgresStoreUrl() : "sqlite:" + db_path().string();
  }
  std::vector<std::string> args{"serve", "--listen", options_.listen, "--store", store_url_};
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());

  std::string log_path = (dir_.path() / "server-stderr.log").string();
  int err_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  int out_pipe[2];
  if (err_fd < 0 || pipe2(out_pipe, O_CLOEXEC) != 0) {
    if (err_fd >= 0) close(err_fd);
    return ::testing::AssertionFailure() << "cannot set up pipes: " << std::strerror(errno);
  }
  pid_ = Spawn(args, options_.env, out_pipe[1], err_fd);
  close(out_pipe[1]);
  close(err_fd);
  stdout_fd_ = out_pipe[0];
  if (pid_ < 0) {
    close(stdout_fd_);
    stdout_fd_ = -1;
    return ::testing::AssertionFailure() << "fork failed: " << std::strerror(errno);
  }

  // Read stdout until the line that tells us the address.
  static constexpr std::string_view kPrefix = "listening on http://";
  std::string out;
  auto deadline = SteadyClock::now() + options_.start_timeout;
  while (SteadyClock::now() < deadline) {
    size_t at = out.find(kPrefix);
    size_t eol = at == std::string::npos ? at : out.find('\n', at);
    if (eol != std::string::npos) {
      std::string address = out.substr(at + kPrefix.size(), eol - at - kPrefix.size());
      size_t colon = address.rfind(':');
      host_ = address.substr(0, colon);
      if (host_.size() > 2 && host_.front() == '[') host_ = host_.substr(1, host_.size() - 2);
      port_ = static_cast<uint16_t>(std::stoi(address.substr(colon + 1)));
      return ::testing::AssertionSuccess();
    }
    if (!ReadSome(stdout_fd_, 50, &out)) break;  // EOF: the server exited
  }
  int code = Stop(std::chrono::seconds(5));
  return ::testing::AssertionFailure()
         << "redrive did not report listening (exit code " << code << ")\nstdout:\n"
         << out << "\nstderr:\n"
         << Stderr();
}

int ServerProcess::Wait(std::chrono::milliseconds timeout) {
  int code = WaitOrKill(pid_, timeout);
  ExpectNoSanitizerReport(pid_, "redrive serve");
  pid_ = -1;
  if (stdout_fd_ >= 0) close(stdout_fd_);
  stdout_fd_ = -1;
  return code;
}

int ServerProcess::Stop(std::chrono::milliseconds timeout) {
  if (!running()) return -1;
  kill(pid_, SIGTERM);
  return Wait(timeout);
}

int ServerProcess::Kill() {
  if (!running()) return -1;
  kill(pid_, SIGKILL);
  return Wait(std::chrono::seconds(30));
}

::testing::AssertionResult ServerProcess::Restart() {
  if (running()) {
    int code = Stop();
    if (code != 0) {
      return ::testing::AssertionFailure() << "graceful stop exited with " << code << "\nstderr:\n"
                                           << Stderr();
    }
  }
  return Start();
}

}  // namespace redrive::e2e
