// Live events for subscribers (SSE and WebSocket streams): the engine
// publishes each commit's events here after the commit, and the hub fans
// them out to its subscriptions on a thread of its own (`rd-events`), so
// neither the commit nor the publisher ever waits for a subscriber.
//
// Every subscription has a bounded buffer. A subscriber that keeps it full
// (a client reading slower than events arrive) is dropped: its subscription
// ends with a reason, which its stream sends before closing. A full buffer
// is given `drain_grace` to make room first (its reader takes everything it
// holds at once), so that a burst larger than the buffer (a batch claim of
// hundreds of jobs) does not drop a client that keeps up. The hub holds at
// most `max_streams` subscriptions at once; one more is refused.
//
// Thread-safety: every method of EventHub and EventSubscription is
// thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/realtime_event.h"
#include "core/status.h"

namespace redrive::engine {

struct EventHubOptions {
  // The most subscriptions at once (--max-event-streams).
  size_t max_streams = 256;
  // Events a subscription may hold before it is dropped (--event-buffer).
  size_t buffer_events = 1024;
  // Events published but not yet fanned out; past it every subscription is
  // dropped (the hub's thread cannot keep up) rather than memory growing.
  size_t max_pending_events = 1 << 18;
  // How long one fan-out waits, in all, for full buffers to make room
  // before it drops their subscribers; 0: drop at once. Publishing never
  // waits (the wait is the hub thread's); past max_pending_events meanwhile,
  // everyone is dropped as above.
  std::chrono::milliseconds drain_grace{1000};
  // Fan out on a thread of the hub's own; false: only when the owner calls
  // DeliverPending (tests).
  bool own_thread = true;
};

using SharedEvent = std::shared_ptr<const RealtimeEvent>;

class EventSubscription {
 public:
  // What Take hands over: the buffered events, in commit order, and, once
  // the subscription ended, why (then no more events come).
  struct Taken {
    std::vector<SharedEvent> events;
    std::optional<std::string> ended;
  };

  ~EventSubscription();

  // Takes every buffered event (and the end, if it came).
  Taken Take();
  // Replaces the filter (a WebSocket client's subscribe message); applies
  // to events fanned out from now on.
  void SetFilter(EventFilter filter);
  EventFilter filter() const;
  // Ends the subscription (its client went away) and frees its place.
  void Cancel();

 private:
  friend class EventHub;
  struct Slots;
  EventSubscription(EventFilter filter, size_t capacity, std::function<void()> wake,
                    std::shared_ptr<Slots> slots);

  // Adds `event` if it matches, waiting until `room_by` for a full buffer
  // to make room; false when it stayed full (the caller then ends it).
  // Calls the wake callback when the buffer was empty.
  bool Offer(const SharedEvent& event, std::chrono::steady_clock::time_point room_by);
  // Ends it with `reason` (no effect once ended) and wakes its reader.
  void End(std::string reason);
  bool ended() const;

  mutable std::mutex mu_;
  std::condition_variable room_;  // the buffer was taken, or it ended
  EventFilter filter_;
  std::vector<SharedEvent> buffer_;
  std::optional<std::string> ended_;
  bool counted_ = true;  // holds one of the hub's slots
  const size_t capacity_;
  const std::function<void()> wake_;
  const std::shared_ptr<Slots> slots_;
};

class EventHub {
 public:
  explicit EventHub(EventHubOptions options = {});
  ~EventHub();  // Stop()s
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  // A new subscription, or UNAVAILABLE when max_streams are open (or the hub
  // stopped). `wake` is called, on the hub's thread, whenever events arrive
  // in an empty buffer and when the subscription ends: it must be quick and
  // must not call back into the hub (post the work elsewhere).
  Result<std::shared_ptr<EventSubscription>> Subscribe(EventFilter filter,
                                                       std::function<void()> wake);

  // Whether anyone listens: the engine makes no events when nobody does.
  bool HasSubscribers() const;
  size_t subscribers() const;

  // Queues one commit's events for fan-out and returns at once.
  void Publish(std::vector<RealtimeEvent> events);
  // Fans out what was published (the hub's thread calls it; tests without
  // own_thread call it directly). Returns the events fanned out.
  size_t DeliverPending();

  // Ends every subscription ("server shutting down") and joins the thread.
  // Idempotent.
  void Stop();

  const EventHubOptions& options() const { return options_; }

 private:
  void Run();
  void EndAll(const std::string& reason);

  const EventHubOptions options_;
  const std::shared_ptr<EventSubscription::Slots> slots_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<RealtimeEvent> pending_;                     // guarded by mu_
  std::vector<std::weak_ptr<EventSubscription>> streams_;  // guarded by mu_
  bool stopped_ = false;                                   // guarded by mu_
  bool overflowed_ = false;                                // guarded by mu_
  std::mutex deliver_mu_;  // one fan-out at a time, in publish order
  std::thread thread_;
};

}  // namespace redrive::engine
