#include "engine/waiters.h"

namespace redrive::engine {

uint64_t Waiters::SequenceLocked(const std::string& queue) const {
  auto it = woken_.find(queue);
  return everyone_ + (it == woken_.end() ? 0 : it->second);
}

uint64_t Waiters::Sequence(const std::string& queue) const {
  std::lock_guard<std::mutex> lock(mu_);
  return SequenceLocked(queue);
}

Waiters::Parked Waiters::Add(const std::string& queue, const Park& park, Resume resume) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Parked::kClosed;
  if (SequenceLocked(queue) != park.seen) return Parked::kWokenMeanwhile;
  by_queue_[queue].push_back({park.deadline, park.repoll_at, std::move(resume), park.abandoned});
  return Parked::kYes;
}

void Waiters::Wake(const std::string& queue, long long n) {
  std::vector<Resume> woken, abandoned;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++woken_[queue];
    auto it = by_queue_.find(queue);
    if (it == by_queue_.end()) return;
    auto& list = it->second;
    while (n > 0 && !list.empty()) {
      Waiter& w = list.front();
      if (w.abandoned.stop_requested()) {
        abandoned.push_back(std::move(w.resume));
      } else {
        woken.push_back(std::move(w.resume));
        --n;
      }
      list.pop_front();
    }
    if (list.empty()) by_queue_.erase(it);
  }
  // Resume outside the lock: a resumed claim may park again.
  for (auto& r : abandoned) r(true);
  for (auto& r : woken) r(false);
}

void Waiters::WakeAll(const std::string& queue) { Wake(queue, static_cast<long long>(1) << 62); }

void Waiters::WakeEveryone() {
  std::map<std::string, std::list<Waiter>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++everyone_;
    all.swap(by_queue_);
  }
  for (auto& [q, list] : all) {
    for (auto& w : list) w.resume(false);
  }
}

std::optional<Instant> Waiters::ExpireDue(Instant now) {
  std::vector<std::pair<Resume, bool>> due;  // (resume, timed_out)
  std::optional<Instant> earliest;
  auto note = [&](Instant t) {
    if (!earliest || t < *earliest) earliest = t;
  };
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = by_queue_.begin(); it != by_queue_.end();) {
      auto& list = it->second;
      for (auto w = list.begin(); w != list.end();) {
        if (w->deadline <= now) {
          due.emplace_back(std::move(w->resume), true);
          w = list.erase(w);
        } else if (w->repoll_at && *w->repoll_at <= now) {
          due.emplace_back(std::move(w->resume), false);
          w = list.erase(w);
        } else {
          note(w->deadline);
          if (w->repoll_at) note(*w->repoll_at);
          ++w;
        }
      }
      it = list.empty() ? by_queue_.erase(it) : std::next(it);
    }
  }
  for (auto& [resume, timed_out] : due) resume(timed_out);
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
