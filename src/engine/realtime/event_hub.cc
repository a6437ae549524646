#include "engine/realtime/event_hub.h"

#include <utility>

#include "core/thread_name.h"

namespace redrive::engine {

// The hub's count of open subscriptions, shared with them so that one
// outliving the hub still gives its place back safely.
struct EventSubscription::Slots {
  std::atomic<size_t> open{0};
};

EventSubscription::EventSubscription(EventFilter filter, size_t capacity,
                                     std::function<void()> wake, std::shared_ptr<Slots> slots)
    : filter_(std::move(filter)),
      capacity_(capacity),
      wake_(std::move(wake)),
      slots_(std::move(slots)) {}

EventSubscription::~EventSubscription() { Cancel(); }

EventSubscription::Taken EventSubscription::Take() {
  Taken taken;
  {
    std::lock_guard lock(mu_);
    taken.events.swap(buffer_);
    taken.ended = ended_;
  }
  room_.notify_all();
  return taken;
}

void EventSubscription::SetFilter(EventFilter filter) {
  std::lock_guard lock(mu_);
  filter_ = std::move(filter);
}

EventFilter EventSubscription::filter() const {
  std::lock_guard lock(mu_);
  return filter_;
}

void EventSubscription::Cancel() {
  {
    std::lock_guard lock(mu_);
    if (!ended_) ended_ = "cancelled";
    buffer_.clear();
    if (counted_) {
      counted_ = false;
      slots_->open.fetch_sub(1);
    }
  }
  room_.notify_all();
}

bool EventSubscription::Offer(const SharedEvent& event,
                              std::chrono::steady_clock::time_point room_by) {
  bool was_empty = false;
  {
    std::unique_lock lock(mu_);
    if (ended_ || !filter_.Matches(*event)) return true;
    if (buffer_.size() >= capacity_ &&
        !room_.wait_until(lock, room_by, [&] { return ended_ || buffer_.size() < capacity_; })) {
      return false;
    }
    if (ended_) return true;
    was_empty = buffer_.empty();
    buffer_.push_back(event);
  }
  if (was_empty && wake_) wake_();
  return true;
}

void EventSubscription::End(std::string reason) {
  {
    std::lock_guard lock(mu_);
    if (ended_) return;
    ended_ = std::move(reason);
  }
  room_.notify_all();
  if (wake_) wake_();
}

bool EventSubscription::ended() const {
  std::lock_guard lock(mu_);
  return ended_.has_value();
}

EventHub::EventHub(EventHubOptions options)
    : options_(options), slots_(std::make_shared<EventSubscription::Slots>()) {
  if (options_.own_thread) thread_ = std::thread([this] { Run(); });
}

EventHub::~EventHub() { Stop(); }

Result<std::shared_ptr<EventSubscription>> EventHub::Subscribe(EventFilter filter,
                                                               std::function<void()> wake) {
  std::lock_guard lock(mu_);
  if (stopped_) return Status::Unavailable("the server is shutting down");
  size_t open = slots_->open.load();
  do {
    if (open >= options_.max_streams) {
      return Status::Unavailable("the server is serving its maximum of " +
                                 std::to_string(options_.max_streams) +
                                 " event streams (--max-event-streams); retry later");
    }
  } while (!slots_->open.compare_exchange_weak(open, open + 1));
  std::shared_ptr<EventSubscription> sub(
      new EventSubscription(std::move(filter), options_.buffer_events, std::move(wake), slots_));
  std::erase_if(streams_, [](const auto& w) { return w.expired(); });
  streams_.push_back(sub);
  return sub;
}

bool EventHub::HasSubscribers() const { return slots_->open.load() > 0; }

size_t EventHub::subscribers() const { return slots_->open.load(); }

void EventHub::Publish(std::vector<RealtimeEvent> events) {
  if (events.empty()) return;
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    if (pending_.size() + events.size() > options_.max_pending_events) {
      overflowed_ = true;
    } else if (pending_.empty()) {
      pending_ = std::move(events);
    } else {
      pending_.insert(pending_.end(), std::make_move_iterator(events.begin()),
                      std::make_move_iterator(events.end()));
    }
  }
  cv_.notify_one();
}

size_t EventHub::DeliverPending() {
  std::lock_guard deliver(deliver_mu_);
  std::vector<RealtimeEvent> events;
  std::vector<std::shared_ptr<EventSubscription>> subs;
  bool overflowed = false;
  {
    std::lock_guard lock(mu_);
    events.swap(pending_);
    overflowed = std::exchange(overflowed_, false);
    subs.reserve(streams_.size());
    for (const auto& weak : streams_) {
      if (auto sub = weak.lock()) subs.push_back(std::move(sub));
    }
  }
  if (overflowed) {
    for (const auto& sub : subs) {
      sub->End("dropped: the server could not keep up with the events; reconnect");
    }
    return 0;
  }
  // One grace for the whole round: however many subscribers are full, the
  // round waits at most drain_grace for them.
  const auto room_by = std::chrono::steady_clock::now() + options_.drain_grace;
  for (RealtimeEvent& e : events) {
    SharedEvent event = std::make_shared<const RealtimeEvent>(std::move(e));
    for (const auto& sub : subs) {
      if (!sub->Offer(event, room_by)) {
        sub->End("dropped: this client read slower than events arrived (" +
                 std::to_string(options_.buffer_events) + " events buffered); reconnect");
      }
    }
  }
  return events.size();
}

void EventHub::Run() {
  SetThreadName("rd-events");
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopped_ || !pending_.empty() || overflowed_; });
    if (stopped_) return;
    lock.unlock();
    DeliverPending();
    lock.lock();
  }
}

void EventHub::EndAll(const std::string& reason) {
  std::vector<std::shared_ptr<EventSubscription>> subs;
  {
    std::lock_guard lock(mu_);
    for (const auto& weak : streams_) {
      if (auto sub = weak.lock()) subs.push_back(std::move(sub));
    }
    streams_.clear();
  }
  for (const auto& sub : subs) sub->End(reason);
}

void EventHub::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    pending_.clear();
  }
  cv_.notify_all();
  // Ended first: a fan-out waiting for a full buffer's room stops waiting.
  EndAll("the server is shutting down");
  if (thread_.joinable()) thread_.join();
}

}  // namespace redrive::engine
