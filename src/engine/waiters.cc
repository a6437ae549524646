#include "engine/waiters.h"

namespace redrive::engine {

bool Waiters::Add(const std::string& queue, Instant deadline, Resume resume) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return false;
  by_queue_[queue].push_back({deadline, std::move(resume)});
  return true;
}

void Waiters::Wake(const std::string& queue, long long n) {
  std::vector<Resume> woken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_queue_.find(queue);
    if (it == by_queue_.end()) return;
    auto& list = it->second;
    while (n-- > 0 && !list.empty()) {
      woken.push_back(std::move(list.front().resume));
      list.pop_front();
    }
    if (list.empty()) by_queue_.erase(it);
  }
  // Resume outside the lock: a resumed claim may park again.
  for (auto& r : woken) r(false);
}

void Waiters::WakeAll(const std::string& queue) { Wake(queue, static_cast<long long>(1) << 62); }

std::optional<Instant> Waiters::ExpireDue(Instant now) {
  std::vector<Resume> expired;
  std::optional<Instant> earliest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = by_queue_.begin(); it != by_queue_.end();) {
      auto& list = it->second;
      for (auto w = list.begin(); w != list.end();) {
        if (w->deadline <= now) {
          expired.push_back(std::move(w->resume));
          w = list.erase(w);
        } else {
          if (!earliest || w->deadline < *earliest) earliest = w->deadline;
          ++w;
        }
      }
      it = list.empty() ? by_queue_.erase(it) : std::next(it);
    }
  }
  for (auto& r : expired) r(true);
  return earliest;
}

void Waiters::Close() {
  std::map<std::string, std::list<Waiter>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    all.swap(by_queue_);
  }
  for (auto& [q, list] : all) {
    for (auto& w : list) w.resume(true);
  }
}

size_t Waiters::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [q, list] : by_queue_) n += list.size();
  return n;
}

std::map<std::string, size_t> Waiters::CountByQueue() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, size_t> out;
  for (const auto& [q, list] : by_queue_) out[q] = list.size();
  return out;
}

}  // namespace redrive::engine
