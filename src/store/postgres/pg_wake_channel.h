// PgWakeChannel: cross-node long-poll wake-ups over PostgreSQL LISTEN/NOTIFY
// (store.h, WakeChannel), on one dedicated connection of its own.
//
// NOTIFY takes a database-wide lock while its transaction commits, so it is
// never issued inside a job transaction: after the engine's commits the
// queues are handed to this channel, which sends them from its own thread
// as one `SELECT pg_notify(...)` per batch. Queues published while a send is
// in flight are coalesced into the next one, and sends are at least
// `min_interval` apart: a busy node sends a few hundred notifications a
// second, not one per job.
//
// A payload is "CHANNEL_ID queue queue ..." (queue names have no spaces);
// a channel ignores its own notifications (its node already woke its own
// waiters). On losing the connection it reconnects with backoff, LISTENs
// again and calls on_reset() (wake every waiter: notifications sent while it
// was away are lost). Transactional enqueue (redrive.enqueue in SQL)
// notifies the same channel from the application's own transaction.
//
// Thread-safety: Publish from any thread; callbacks on the channel's thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"
#include "store/store.h"

namespace redrive::store::postgres {

// The LISTEN/NOTIFY channel name (also used by redrive.enqueue in SQL).
inline constexpr char kWakeChannelName[] = "redrive_wake";

struct WakeChannelOptions {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds min_interval{2};
  // Reconnect backoff: doubles from min to max.
  std::chrono::milliseconds reconnect_min{50};
  std::chrono::milliseconds reconnect_max{2000};
};

class PgWakeChannel final : public WakeChannel {
 public:
  // `url`: a libpq connection string or URI. Connects in Start().
  PgWakeChannel(std::string url, WakeChannelOptions options = {});
  ~PgWakeChannel() override;  // Stop()s

  // Returns at once; a database that cannot be reached is retried in the
  // background (on_reset() follows the first successful LISTEN).
  Status Start(std::function<void(const std::string& queue)> on_wake,
               std::function<void()> on_reset) override;
  void Publish(const std::vector<std::string>& queues) override;
  void Stop() override;

  // This channel's id in payloads (tests).
  const std::string& id() const { return id_; }
  // Times the connection was (re)established and LISTEN issued (tests).
  long long connects() const;

 private:
  void Run();

  const std::string url_;
  const WakeChannelOptions options_;
  const std::string id_;
  std::function<void(const std::string&)> on_wake_;
  std::function<void()> on_reset_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> pending_;
  bool stop_ = false;
  long long connects_ = 0;
  int wake_fd_ = -1;  // eventfd: Publish/Stop wake the channel's poll()
  std::thread thread_;
};

}  // namespace redrive::store::postgres
