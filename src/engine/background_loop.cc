#include "engine/background_loop.h"

#include <algorithm>

#include "core/thread_name.h"

namespace redrive::engine {

using SteadyClock = std::chrono::steady_clock;

BackgroundLoop::BackgroundLoop(const Clock& clock, Waiters& waiters, Duties& duties,
                               std::chrono::milliseconds max_idle)
    : clock_(clock), waiters_(waiters), duties_(duties), max_idle_(max_idle) {}

BackgroundLoop::~BackgroundLoop() { Stop(); }

void BackgroundLoop::Add(std::unique_ptr<Service> service) {
  const bool per_node = service->duty() == nullptr;
  services_.push_back({std::move(service), Instant{}, per_node, Instant{}});
}

bool BackgroundLoop::CheckLeads(Entry& e, Instant now) {
  const char* duty = e.service->duty();
  if (duty == nullptr) return true;
  const bool leads = duties_.Leads(duty, now);
  if (leads && !e.leads) e.next_run = now;  // gained: run at once
  e.leads = leads;
  e.next_check = now + kLeadershipCheckInterval;
  return leads;
}

long long BackgroundLoop::Run(Entry& e, Instant now) {
  ServiceRun r = e.service->RunOnce(now);
  e.next_run = r.more ? now : r.next_run.value_or(now + max_idle_);
  return r.changed;
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
    if (CheckLeads(e, now)) changed += Run(e, now);
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
        const Instant now = clock_.Now();
        const bool duty = e.service->duty() != nullptr;
        if (e.leads && nudge) e.next_run = std::min(e.next_run, *nudge);
        // Asked before every pass, and every check interval besides (to
        // renew the hold, or to find the duty free).
        if (duty && (e.next_check <= now || (e.leads && e.next_run <= now))) CheckLeads(e, now);
        if (e.leads && e.next_run <= now) Run(e, now);
        Instant wake = e.leads ? e.next_run : e.next_check;
        if (duty) wake = std::min(wake, e.next_check);
        if (!next || wake < *next) next = wake;
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
