#include "support/pg_cluster.h"

#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace redrive::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

fs::path FindBindir() {
  if (const char* dir = std::getenv("REDRIVE_PG_BINDIR"); dir && *dir) return dir;
  for (const char* v : {"15", "16", "17", "14"}) {
    fs::path dir = fs::path("/usr/lib/postgresql") / v / "bin";
    if (fs::exists(dir / "initdb") && fs::exists(dir / "postgres")) return dir;
  }
  return {};
}

int FreeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// The user the server runs as: `postgres` when we are root (the server
// refuses to run as root), else ourselves (nullptr).
const passwd* ServerUser() {
  if (::geteuid() != 0) return nullptr;
  return ::getpwnam("postgres");
}

struct Spawn {
  std::vector<std::string> argv;
  bool as_server_user = false;
  bool own_group = false;  // a new process group, signalled on our death
  int out_fd = -1;         // stdout and stderr go here (-1: /dev/null)
};

// Forks and execs; returns the child's pid or -1.
pid_t SpawnProcess(const Spawn& s) {
  std::vector<char*> args;
  for (const std::string& a : s.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const passwd* user = s.as_server_user ? ServerUser() : nullptr;
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  // Child: only async-signal-safe calls from here on.
  if (s.own_group) ::setpgid(0, 0);
  int out = s.out_fd >= 0 ? s.out_fd : ::open("/dev/null", O_WRONLY);
  if (out >= 0) {
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
  }
  int in = ::open("/dev/null", O_RDONLY);
  if (in >= 0) ::dup2(in, STDIN_FILENO);
  if (user) {
    if (::setgid(user->pw_gid) != 0 || ::initgroups(user->pw_name, user->pw_gid) != 0 ||
        ::setuid(user->pw_uid) != 0) {
      ::_exit(126);
    }
  }
  // After the credential change (which clears it).
  if (s.own_group) {
    ::prctl(PR_SET_PDEATHSIG, SIGINT);
    if (::getppid() != parent) ::_exit(1);
  }
  ::execv(args[0], args.data());
  ::_exit(127);
}

// Runs a command to completion; its exit code and what it printed.
struct RunResult {
  int exit_code = -1;
  std::string output;
};

RunResult RunToCompletion(Spawn s) {
  int fds[2];
  RunResult r;
  if (::pipe2(fds, O_CLOEXEC) != 0) return r;
  s.out_fd = fds[1];
  pid_t pid = SpawnProcess(s);
  ::close(fds[1]);
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n > 0) {
      r.output.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  ::close(fds[0]);
  if (pid < 0) return r;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string Tail(const fs::path& file, size_t max = 4000) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > max ? s.substr(s.size() - max) : s;
}

// Reaps `pid` if it exited; true when it is gone.
bool Reaped(pid_t pid) {
  int status = 0;
  pid_t r = ::waitpid(pid, &status, WNOHANG);
  return r == pid || (r < 0 && errno == ECHILD);
}

bool WaitExit(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (Clock::now() < until) {
    if (Reaped(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Reaped(pid);
}

}  // namespace

Result<std::unique_ptr<PgCluster>> PgCluster::Start(PgClusterOptions options) {
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<PgCluster> c, Prepare(std::move(options)));
  REDRIVE_RETURN_IF_ERROR(c->InitDb());
  c->port_ = FreeLoopbackPort();
  if (c->port_ == 0) return Status::Unavailable("no free loopback port");
  REDRIVE_RETURN_IF_ERROR(c->Launch());
  return c;
}

Result<std::unique_ptr<PgCluster>> PgCluster::StartStandby(const PgCluster& primary,
                                                           const std::string& application_name,
                                                           PgClusterOptions options) {
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<PgCluster> c, Prepare(std::move(options)));
  const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(primary.port()) +
                               " user=postgres application_name=" + application_name;
  RunResult r = RunToCompletion({{(c->bindir_ / "pg_basebackup").string(), "-d", conninfo, "-D",
                                  c->data_dir_.string(), "-R", "-X", "stream", "--checkpoint=fast"},
                                 /*as_server_user=*/true});
  if (r.exit_code != 0) return Status::Unavailable("pg_basebackup failed: " + r.output);
  // -R wrote standby.signal and a primary_conninfo; this one names the
  // standby for synchronous_standby_names whatever -R put in it.
  {
    std::ofstream conf(c->data_dir_ / "postgresql.auto.conf", std::ios::app);
    conf << "primary_conninfo = '" << conninfo << "'\n";
    if (!conf) return Status::Unavailable("cannot write the standby's postgresql.auto.conf");
  }
  c->port_ = FreeLoopbackPort();
  if (c->port_ == 0) return Status::Unavailable("no free loopback port");
  REDRIVE_RETURN_IF_ERROR(c->Launch());
  return c;
}

Result<std::unique_ptr<PgCluster>> PgCluster::Prepare(PgClusterOptions options) {
  std::unique_ptr<PgCluster> c(new PgCluster());
  c->options_ = std::move(options);
  c->bindir_ = FindBindir();
  if (c->bindir_.empty()) {
    return Status::Unavailable(
        "PostgreSQL server binaries not found (install postgresql-15, or set REDRIVE_PG_BINDIR)");
  }
  std::string tmpl = (fs::temp_directory_path() / "redrive-pg-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Status::Unavailable(std::string("cannot create a temporary directory: ") +
                               std::strerror(errno));
  }
  c->root_ = tmpl;
  c->data_dir_ = c->root_ / "data";
  if (const passwd* user = ServerUser()) {
    if (::chown(c->root_.c_str(), user->pw_uid, user->pw_gid) != 0) {
      return Status::Unavailable("cannot give " + c->root_.string() + " to postgres");
    }
  } else if (::geteuid() == 0) {
    return Status::Unavailable("running as root and there is no `postgres` user");
  }
  return c;
}

PgCluster& PgCluster::Shared() {
  static std::mutex mu;
  static std::unique_ptr<PgCluster> shared;
  std::lock_guard<std::mutex> lock(mu);
  if (!shared) {
    auto started = Start();
    if (!started.ok()) {
      throw std::runtime_error("cannot start the test PostgreSQL cluster: " +
                               started.status().message());
    }
    shared = std::move(*started);
  }
  return *shared;
}

PgCluster::~PgCluster() {
  if (running()) (void)Stop();
  if (!root_.empty() && !std::getenv("REDRIVE_KEEP_TEMP")) {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
}

std::string PgCluster::Url(const std::string& dbname) const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + dbname;
}

// initdb takes seconds and every test process starts a cluster, so one
// initdb per machine (and binaries) makes a template that each cluster
// copies (a fraction of a second). The template is made under another name
// and renamed into place, so a half-made one is never used.
Status PgCluster::InitDb() {
  const fs::path tmp = fs::temp_directory_path();
  const std::string key = std::to_string(::geteuid()) + "-" +
                          std::to_string(std::hash<std::string>{}(bindir_.string()));
  const fs::path tmpl = tmp / ("redrive-pg-template-v2-" + key);
  std::error_code ec;
  if (!fs::exists(tmpl / "PG_VERSION", ec)) {
    const fs::path staging = root_ / "template";
    RunResult r = RunToCompletion({{(bindir_ / "initdb").string(), "-D", staging.string(), "-U",
                                    "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
                                    // 1 MB WAL segments: a smaller copy.
                                    "--wal-segsize=1",
                                    // Only initdb's own writes skip fsync; the
                                    // server runs with fsync=on.
                                    "--no-sync"},
                                   /*as_server_user=*/true});
    if (r.exit_code != 0) return Status::Unavailable("initdb failed: " + r.output);
    fs::rename(staging, tmpl, ec);  // another process may have won: fine
    if (ec) fs::remove_all(staging, ec);
  }
  fs::copy(tmpl, data_dir_, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) return Status::Unavailable("cannot copy " + tmpl.string() + ": " + ec.message());
  fs::permissions(data_dir_, fs::perms::owner_all, ec);
  if (const passwd* user = ServerUser()) {
    if (::lchown(data_dir_.c_str(), user->pw_uid, user->pw_gid) != 0) {
      return Status::Unavailable("cannot give " + data_dir_.string() + " to postgres");
    }
    for (const auto& entry : fs::recursive_directory_iterator(data_dir_, ec)) {
      if (::lchown(entry.path().c_str(), user->pw_uid, user->pw_gid) != 0) {
        return Status::Unavailable("cannot give " + entry.path().string() + " to postgres");
      }
    }
  }
  return Status::Ok();
}

Status PgCluster::Launch() {
  const fs::path log = root_ / "server.log";
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Unavailable("cannot open " + log.string());
  Spawn s;
  s.argv = {(bindir_ / "postgres").string(),
            "-D",
            data_dir_.string(),
            "-p",
            std::to_string(port_),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "unix_socket_directories=" + root_.string(),
            "-c",
            "fsync=on",
            "-c",
            "synchronous_commit=on",
            "-c",
            "max_connections=300"};
  for (const std::string& setting : options_.settings) {
    s.argv.push_back("-c");
    s.argv.push_back(setting);
  }
  s.as_server_user = true;
  s.own_group = true;
  // The child gets its own copy (dup2 clears O_CLOEXEC on the copy).
  s.out_fd = fd;
  pid_ = SpawnProcess(s);
  ::close(fd);
  if (pid_ < 0) return Status::Unavailable("cannot fork the PostgreSQL server");
  return WaitReady();
}

Status PgCluster::WaitReady() {
  const auto until = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < until) {
    if (Reaped(pid_)) {
      pid_ = -1;
      return Status::Unavailable("the PostgreSQL server exited: " + Tail(root_ / "server.log"));
    }
    RunResult r = RunToCompletion({{(bindir_ / "pg_isready").string(), "-q", "-h", "127.0.0.1",
                                    "-p", std::to_string(port_), "-d", "postgres"}});
    if (r.exit_code == 0) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::Unavailable("the PostgreSQL server did not become ready: " +
                             Tail(root_ / "server.log"));
}

Status PgCluster::CreateDatabase(const std::string& name) {
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return Status::Internal("not a plain database name: " + name);
    }
  }
  return Psql("CREATE DATABASE " + name).status();
}

Result<std::string> PgCluster::CreateUniqueDatabase(const std::string& prefix) {
  std::string name = prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(++unique_);
  REDRIVE_RETURN_IF_ERROR(CreateDatabase(name));
  return name;
}

Result<std::string> PgCluster::Psql(const std::string& sql, const std::string& dbname) {
  RunResult r = RunToCompletion(
      {{(bindir_ / "psql").string(), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
        "-p", std::to_string(port_), "-U", "postgres", "-d", dbname, "-c", sql}});
  if (r.exit_code != 0) return Status::Unavailable("psql failed: " + r.output);
  return r.output;
}

Status PgCluster::Stop() {
  if (!running()) return Status::Ok();
  ::kill(pid_, SIGINT);  // fast shutdown: ends sessions, checkpoints
  if (!WaitExit(pid_, std::chrono::seconds(30))) {
    ::killpg(pid_, SIGKILL);
    WaitExit(pid_, std::chrono::seconds(10));
  }
  pid_ = -1;
  return Status::Ok();
}

// The postmaster's children (its backends and helpers), from /proc.
static std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(std::stoi(name));
  }
  return out;
}

Status PgCluster::Kill() {
  if (!running()) return Status::Ok();
  // Backends may leave the postmaster's process group (setsid), so they are
  // killed by parentage first, then the group.
  const std::vector<pid_t> children = ChildrenOf(pid_);
  for (pid_t child : children) ::kill(child, SIGKILL);
  ::killpg(pid_, SIGKILL);
  WaitExit(pid_, std::chrono::seconds(10));
  // The backends are in the same group; wait (bounded) until they are gone
  // too, so a restart finds the shared memory free.
  const auto until = Clock::now() + std::chrono::seconds(5);
  auto alive = [&] {
    if (::killpg(pid_, 0) == 0) return true;
    for (pid_t child : children) {
      if (::kill(child, 0) == 0) return true;
    }
    return false;
  };
  while (Clock::now() < until && alive()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
  return Status::Ok();
}

Status PgCluster::Promote() {
  RunResult r = RunToCompletion(
      {{(bindir_ / "pg_ctl").string(), "promote", "-w", "-t", "60", "-D", data_dir_.string()},
       /*as_server_user=*/true});
  if (r.exit_code != 0) return Status::Unavailable("pg_ctl promote failed: " + r.output);
  const auto until = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < until) {
    auto in_recovery = Psql("SELECT pg_is_in_recovery()");
    if (in_recovery.ok() && in_recovery->rfind("f", 0) == 0) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::Unavailable("the promoted standby still is in recovery");
}

Status PgCluster::Restart() {
  if (running()) REDRIVE_RETURN_IF_ERROR(Stop());
  return Launch();
}

}  // namespace redrive::testing
