#include "store/postgres/pg_wake_channel.h"

#include <libpq-fe.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "core/thread_name.h"

namespace redrive::store::postgres {
namespace {

using SteadyClock = std::chrono::steady_clock;

// NOTIFY payloads must be shorter than 8000 bytes.
constexpr size_t kMaxPayload = 7900;

std::string RandomId() {
  std::random_device rd;
  std::uniform_int_distribution<int> hex(0, 15);
  std::string id;
  for (int i = 0; i < 16; ++i) id += "0123456789abcdef"[hex(rd)];
  return id;
}

PGconn* Connect(const std::string& url, std::chrono::milliseconds timeout) {
  const std::string seconds =
      std::to_string(std::max<long long>(1, (timeout.count() + 999) / 1000));
  // Earlier keywords are defaults: the URL (expanded from dbname) overrides them.
  const char* keys[] = {
      "connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval",
      "keepalives_count", "application_name", "dbname",          nullptr};
  const char* values[] = {seconds.c_str(), "1",         "5",    "2", "3",
                          "redrive-wake",  url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn && PQstatus(conn) == CONNECTION_OK) return conn;
  if (conn) {
    spdlog::warn("wake channel: cannot connect: {}", PQerrorMessage(conn));
    PQfinish(conn);
  }
  return nullptr;
}

bool Exec(PGconn* conn, const char* sql, int n, const char* const* params) {
  PGresult* r =
      n == 0 ? PQexec(conn, sql) : PQexecParams(conn, sql, n, nullptr, params, nullptr, nullptr, 0);
  const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  const bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
  if (!ok) spdlog::warn("wake channel: {}", PQerrorMessage(conn));
  PQclear(r);
  return ok;
}

// "ID q1 q2 ..." payloads of at most kMaxPayload bytes covering `queues`.
std::vector<std::string> Payloads(const std::string& id, const std::set<std::string>& queues) {
  std::vector<std::string> out;
  std::string cur = id;
  for (const std::string& q : queues) {
    if (cur.size() + 1 + q.size() > kMaxPayload) {
      out.push_back(std::move(cur));
      cur = id;
    }
    cur += ' ';
    cur += q;
  }
  if (cur.size() > id.size()) out.push_back(std::move(cur));
  return out;
}

}  // namespace

PgWakeChannel::PgWakeChannel(std::string url, WakeChannelOptions options)
    : url_(std::move(url)), options_(options), id_(RandomId()) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

PgWakeChannel::~PgWakeChannel() {
  Stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

Status PgWakeChannel::Start(std::function<void(const std::string& queue)> on_wake,
                            std::function<void()> on_reset) {
  if (wake_fd_ < 0) return Status::Internal("wake channel: no eventfd");
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return Status::Ok();
  on_wake_ = std::move(on_wake);
  on_reset_ = std::move(on_reset);
  stop_ = false;
  thread_ = std::thread([this] {
    SetThreadName("rd-pg-wake");
    Run();
  });
  return Status::Ok();
}

void PgWakeChannel::Publish(const std::vector<std::string>& queues) {
  if (queues.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ || !thread_.joinable()) return;
    pending_.insert(queues.begin(), queues.end());
  }
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));
}

void PgWakeChannel::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

long long PgWakeChannel::connects() const {
  std::lock_guard<std::mutex> lock(mu_);
  return connects_;
}

void PgWakeChannel::Run() {
  PGconn* conn = nullptr;
  auto backoff = options_.reconnect_min;
  auto last_send = SteadyClock::now() - options_.min_interval;
  const std::string listen = std::string("LISTEN ") + kWakeChannelName;

  auto drop = [&] {
    PQfinish(conn);
    conn = nullptr;
  };
  auto drain = [&] {
    while (PGnotify* n = PQnotifies(conn)) {
      std::istringstream words(n->extra ? n->extra : "");
      std::string sender, queue;
      words >> sender;
      if (sender != id_) {
        while (words >> queue) on_wake_(queue);
      }
      PQfreemem(n);
    }
  };

  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_) break;
    }
    if (!conn) {
      conn = Connect(url_, options_.connect_timeout);
      if (!conn || !Exec(conn, listen.c_str(), 0, nullptr)) {
        if (conn) drop();
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, backoff, [&] { return stop_; });
        backoff = std::min(backoff * 2, options_.reconnect_max);
        continue;
      }
      backoff = options_.reconnect_min;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++connects_;
      }
      // Whatever was notified while we were not listening is lost.
      on_reset_();
    }

    // Send what is pending, at most once per min_interval.
    auto now = SteadyClock::now();
    std::set<std::string> batch;
    bool more_pending = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!pending_.empty()) {
        if (now - last_send >= options_.min_interval) {
          batch.swap(pending_);
        } else {
          more_pending = true;
        }
      }
    }
    if (!batch.empty()) {
      last_send = now;
      bool sent = true;
      for (const std::string& payload : Payloads(id_, batch)) {
        const char* params[] = {kWakeChannelName, payload.c_str()};
        if (!Exec(conn, "SELECT pg_notify($1, $2)", 2, params)) {
          sent = false;
          break;
        }
      }
      if (!sent) {
        std::lock_guard<std::mutex> lock(mu_);
        pending_.insert(batch.begin(), batch.end());
        drop();
        continue;
      }
      drain();
      std::lock_guard<std::mutex> lock(mu_);
      more_pending = !pending_.empty();
    }

    // Wait for the server's notifications, a Publish or Stop.
    int timeout_ms = 1000;
    if (more_pending) {
      auto wait = options_.min_interval - (SteadyClock::now() - last_send);
      timeout_ms = static_cast<int>(
          std::max<long long>(0, std::chrono::ceil<std::chrono::milliseconds>(wait).count()));
    }
    pollfd fds[2] = {{PQsocket(conn), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, timeout_ms);
    if (n < 0) continue;  // EINTR
    if (fds[1].revents & POLLIN) {
      uint64_t count;
      (void)!::read(wake_fd_, &count, sizeof(count));
    }
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
      if (!PQconsumeInput(conn) || PQstatus(conn) != CONNECTION_OK) {
        spdlog::warn("wake channel: connection lost: {}", PQerrorMessage(conn));
        drop();
        continue;
      }
      drain();
    }
  }
  if (conn) PQfinish(conn);
}

}  // namespace redrive::store::postgres
