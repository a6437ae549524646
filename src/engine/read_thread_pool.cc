#include "engine/read_thread_pool.h"

#include "core/thread_name.h"

namespace redrive::engine {

ReadThreadPool::ReadThreadPool(store::Store& store, int threads)
    : store_(store), thread_count_(threads < 1 ? 1 : threads) {}

ReadThreadPool::~ReadThreadPool() { Stop(); }

void ReadThreadPool::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!threads_.empty()) return;
  accepting_ = true;
  stop_ = false;
  for (int i = 0; i < thread_count_; ++i)
    threads_.emplace_back([this] {
      SetThreadName("rd-reader");
      Loop();
    });
}

void ReadThreadPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    accepting_ = false;
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void ReadThreadPool::Post(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (accepting_) {
      queue_.push_back(std::move(task));
      cv_.notify_one();
      return;
    }
  }
  task.on_error(Status::Unavailable("the server is shutting down"));
}

void ReadThreadPool::PostReply(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (accepting_) {
      queue_.push_back({nullptr, nullptr, std::move(fn)});
      cv_.notify_one();
      return;
    }
  }
  fn();
}

void ReadThreadPool::Loop() {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    if (task.reply) {
      task.reply();
      continue;
    }
    auto tx = store_.BeginRead();
    if (!tx.ok()) {
      task.on_error(Status::Unavailable("store error: " + tx.status().message()));
      continue;
    }
    task.run(**tx);
  }
}

}  // namespace redrive::engine
