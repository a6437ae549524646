#include "engine/notifier.h"

namespace redrive::engine {

void Deliver(Waiters& waiters, const WakeUp& wake) {
  for (const auto& [queue, n] : wake.became_claimable) waiters.Wake(queue, n);
  for (const auto& [queue, all] : wake.wake_all) {
    if (all) waiters.WakeAll(queue);
  }
}

Status LocalNotifier::Start(Waiters& local) {
  std::lock_guard<std::mutex> lock(mu_);
  local_ = &local;
  return Status::Ok();
}

void LocalNotifier::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  local_ = nullptr;
}

void LocalNotifier::Publish(const WakeUp& wake) {
  Waiters* local;
  {
    std::lock_guard<std::mutex> lock(mu_);
    local = local_;
  }
  // The waiters outlive Stop(), so using them outside the lock is safe; a
  // resumed claim may publish again, which must not deadlock here.
  if (local != nullptr) Deliver(*local, wake);
}

}  // namespace redrive::engine
