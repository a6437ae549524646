#include "engine/background_loop.h"

#include <algorithm>

#include "core/thread_name.h"

namespace redrive::engine {

using SteadyClock = std::chrono::steady_clock;

BackgroundLoop::BackgroundLoop(const Clock& clock, Waiters& waiters,
                               std::chrono::milliseconds max_idle)
    : clock_(clock), waiters_(waiters), max_idle_(max_idle) {}

BackgroundLoop::~BackgroundLoop() { Stop(); }

void BackgroundLoop::Add(std::unique_ptr<Service> service) {
  services_.push_back({std::move(service), Instant{}});
}

void BackgroundLoop::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] {
    SetThreadName("rd-background");
    Loop();
  });
}

void BackgroundLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BackgroundLoop::Nudge(Instant t) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (nudged_ && *nudged_ <= t) return;
    nudged_ = t;
  }
  cv_.notify_all();
}

void BackgroundLoop::NudgeWaiters(Instant t) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (waiter_due_ && *waiter_due_ <= t) return;
    waiter_due_ = t;
  }
  cv_.notify_all();
}

long long BackgroundLoop::RunAllOnce(Instant now) {
  std::lock_guard<std::mutex> run_lock(run_mu_);
  long long changed = 0;
  for (auto& e : services_) {
    ServiceRun r = e.service->RunOnce(now);
    changed += r.changed;
    e.next_run = r.more ? now : r.next_run.value_or(now + max_idle_);
  }
  waiters_.ExpireDue(now);
  return changed;
}

void BackgroundLoop::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const std::optional<Instant> nudge = nudged_;
    nudged_.reset();
    waiter_due_.reset();
    lock.unlock();

    std::optional<Instant> next;
    {
      std::lock_guard<std::mutex> run_lock(run_mu_);
      for (auto& e : services_) {
        if (nudge) e.next_run = std::min(e.next_run, *nudge);
        const Instant now = clock_.Now();
        if (e.next_run <= now) {
          ServiceRun r = e.service->RunOnce(now);
          e.next_run = r.more ? now : r.next_run.value_or(now + max_idle_);
        }
        if (!next || e.next_run < *next) next = e.next_run;
      }
    }
    const std::optional<Instant> waiter_next = waiters_.ExpireDue(clock_.Now());

    lock.lock();
    if (stop_) break;
    // Sleep until the earliest of: a service's next run, a waiter's deadline,
    // max_idle — or until a nudge/new waiter says something is due sooner.
    // The engine-clock distance to that instant becomes the wall-time sleep.
    const Instant now = clock_.Now();
    Instant due = now + max_idle_;
    if (next) due = std::min(due, *next);
    if (waiter_next) due = std::min(due, *waiter_next);
    const auto wake =
        SteadyClock::now() + std::max(std::chrono::duration_cast<SteadyClock::duration>(due - now),
                                      SteadyClock::duration::zero());
    cv_.wait_until(lock, wake, [&] {
      return stop_ || (waiter_due_ && *waiter_due_ < due) ||
             (nudged_ && (!next || *nudged_ < *next));
    });
  }
}

}  // namespace redrive::engine
