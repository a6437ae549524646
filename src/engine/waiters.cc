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
  // The callback is registered before the lock is taken: a caller that has
  // already left runs it here and now, and it finds nothing to abandon.
  std::unique_ptr<OnAbandon> on_abandon;
  const uint64_t id = next_id_.fetch_add(1) + 1;
  if (park.abandoned.stop_possible()) {
    on_abandon = std::make_unique<OnAbandon>(
        park.abandoned, std::function<void()>([this, queue, id] { Abandon(queue, id); }));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Parked::kClosed;
  if (SequenceLocked(queue) != park.seen) return Parked::kWokenMeanwhile;
  // Left before the callback could find this waiter (the stop is requested
  // before any callback runs, so one that ran is seen here).
  if (park.abandoned.stop_requested()) return Parked::kAbandoned;
  by_queue_[queue].push_back({id, park.deadline, park.repoll_at, std::move(resume), park.abandoned,
                              std::move(on_abandon)});
  return Parked::kYes;
}

void Waiters::LookedEmpty(const std::string& queue, uint64_t seen, Instant at) {
  std::lock_guard<std::mutex> lock(mu_);
  if (SequenceLocked(queue) != seen) return;  // woken since: already stale
  if (empty_.size() >= kMaxEmptyLooks && !empty_.contains(queue)) empty_.clear();
  EmptyLook& look = empty_[queue];
  if (look.seen != seen || look.at < at) look = {seen, at};
}

std::optional<uint64_t> Waiters::KnownEmpty(const std::string& queue, Instant after) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = empty_.find(queue);
  if (it == empty_.end() || it->second.at <= after) return std::nullopt;
  if (SequenceLocked(queue) != it->second.seen) return std::nullopt;
  return it->second.seen;
}

void Waiters::Abandon(std::string queue, uint64_t id) {
  Resume resume;
  std::unique_ptr<OnAbandon> self;  // this callback's own: destroying it here does not wait
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_queue_.find(queue);
    if (it == by_queue_.end()) return;
    auto& list = it->second;
    for (auto w = list.begin(); w != list.end(); ++w) {
      if (w->id != id) continue;
      resume = std::move(w->resume);
      self = std::move(w->on_abandon);
      list.erase(w);
      if (list.empty()) by_queue_.erase(it);
      break;
    }
  }
  if (resume) resume(true);
}

long long Waiters::Wake(const std::string& queue, long long n) { return Wake(queue, n, false); }

long long Waiters::HandOver(const std::string& queue, long long n) { return Wake(queue, n, true); }

long long Waiters::Wake(const std::string& queue, long long n, bool keep_empty_look) {
  std::vector<Resume> woken, abandoned;
  std::list<Waiter> gone;  // their callbacks go outside the lock
  {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t before = SequenceLocked(queue);
    ++woken_[queue];
    auto look = empty_.find(queue);
    if (look != empty_.end()) {
      if (keep_empty_look && look->second.seen == before) {
        look->second.seen = SequenceLocked(queue);
      } else {
        empty_.erase(look);
      }
    }
    auto it = by_queue_.find(queue);
    if (it == by_queue_.end()) return 0;
    auto& list = it->second;
    while (n > 0 && !list.empty()) {
      Waiter& w = list.front();
      if (w.abandoned.stop_requested()) {
        abandoned.push_back(std::move(w.resume));
      } else {
        woken.push_back(std::move(w.resume));
        --n;
      }
      gone.splice(gone.end(), list, list.begin());
    }
    if (list.empty()) by_queue_.erase(it);
  }
  gone.clear();
  // Resume outside the lock: a resumed claim may park again.
  for (auto& r : abandoned) r(true);
  for (auto& r : woken) r(false);
  return static_cast<long long>(woken.size());
}

void Waiters::WakeAll(const std::string& queue) { Wake(queue, static_cast<long long>(1) << 62); }

void Waiters::WakeEveryone() {
  std::map<std::string, std::list<Waiter>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++everyone_;
    empty_.clear();
    all.swap(by_queue_);
  }
  for (auto& [q, list] : all) {
    for (auto& w : list) w.resume(false);
  }
}

std::optional<Instant> Waiters::ExpireDue(Instant now) {
  std::vector<std::pair<Resume, bool>> due;  // (resume, timed_out)
  std::list<Waiter> gone;                    // their callbacks go outside the lock
  std::optional<Instant> earliest;
  auto note = [&](Instant t) {
    if (!earliest || t < *earliest) earliest = t;
  };
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = by_queue_.begin(); it != by_queue_.end();) {
      auto& list = it->second;
      for (auto w = list.begin(); w != list.end();) {
        if (w->deadline <= now || (w->repoll_at && *w->repoll_at <= now)) {
          due.emplace_back(std::move(w->resume), w->deadline <= now);
          gone.splice(gone.end(), list, w++);
        } else {
          note(w->deadline);
          if (w->repoll_at) note(*w->repoll_at);
          ++w;
        }
      }
      it = list.empty() ? by_queue_.erase(it) : std::next(it);
    }
  }
  gone.clear();
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
