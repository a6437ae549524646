// A few threads that run read-only requests on store read snapshots, so that
// reads neither block I/O threads nor wait behind group commits.
//
// Thread-safety: Post() may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/status.h"
#include "store/store.h"

namespace redrive::engine {

class ReadThreadPool {
 public:
  // Runs with a fresh read snapshot; if none can be had, `on_error` instead.
  struct Task {
    std::function<void(store::ReadTx&)> run;
    std::function<void(Status)> on_error;
    std::function<void()> reply;  // PostReply's: set instead of run
  };

  ReadThreadPool(store::Store& store, int threads);
  ~ReadThreadPool();  // Stop()s

  void Start();
  // Runs what is queued, then joins. Later posts fail with SERVICE_UNAVAILABLE.
  void Stop();
  void Post(Task task);
  // Runs `fn` on a reader thread without a snapshot (a read's answer that
  // waited for durability, so that encoding it does not hold up the thread
  // that released it); once stopped, on the caller's thread.
  void PostReply(std::function<void()> fn);

 private:
  void Loop();

  store::Store& store_;
  const int thread_count_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  bool accepting_ = false;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace redrive::engine
