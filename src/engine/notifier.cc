#include "engine/notifier.h"

#include <string>
#include <vector>

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

Waiters* LocalNotifier::Local() {
  // The waiters outlive Stop(), so using them outside the lock is safe; a
  // resumed claim may publish again, which must not deadlock here.
  std::lock_guard<std::mutex> lock(mu_);
  return local_;
}

void LocalNotifier::Publish(const WakeUp& wake) {
  if (Waiters* local = Local()) Deliver(*local, wake);
}

long long LocalNotifier::HandOver(const std::map<std::string, long long>& claimable) {
  Waiters* local = Local();
  long long woken = 0;
  if (local != nullptr) {
    for (const auto& [queue, n] : claimable) woken += local->HandOver(queue, n);
  }
  return woken;
}

ChannelNotifier::~ChannelNotifier() { Stop(); }

Status ChannelNotifier::Start(Waiters& local) {
  REDRIVE_RETURN_IF_ERROR(local_.Start(local));
  // The callbacks run on the channel's thread; the waiters are thread-safe
  // and outlive the channel (Stop joins its thread).
  return channel_->Start([&local](const std::string& queue) { local.WakeAll(queue); },
                         [&local] { local.WakeEveryone(); });
}

void ChannelNotifier::Stop() {
  channel_->Stop();
  local_.Stop();
}

void ChannelNotifier::Publish(const WakeUp& wake) {
  local_.Publish(wake);
  std::vector<std::string> queues;
  for (const auto& [queue, n] : wake.became_claimable) queues.push_back(queue);
  for (const auto& [queue, all] : wake.wake_all) {
    if (all && !wake.became_claimable.contains(queue)) queues.push_back(queue);
  }
  if (!queues.empty()) channel_->Publish(queues);
}

}  // namespace redrive::engine
