// CancellationToken and HandlerResult: the small value types a handler sees.
#include <condition_variable>
#include <mutex>

#include "redrive/worker.h"

namespace redrive::sdk {

struct CancellationToken::State {
  mutable std::mutex mu;
  mutable std::condition_variable cv;
  bool cancelled = false;
};

CancellationToken::CancellationToken() : state_(std::make_shared<State>()) {}

bool CancellationToken::cancelled() const {
  std::lock_guard lock(state_->mu);
  return state_->cancelled;
}

bool CancellationToken::WaitFor(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(state_->mu);
  return state_->cv.wait_for(lock, timeout, [&] { return state_->cancelled; });
}

void CancellationToken::Wait() const {
  std::unique_lock lock(state_->mu);
  state_->cv.wait(lock, [&] { return state_->cancelled; });
}

void CancellationToken::Cancel() {
  {
    std::lock_guard lock(state_->mu);
    state_->cancelled = true;
  }
  state_->cv.notify_all();
}

HandlerResult HandlerResult::Success(boost::json::value result) {
  HandlerResult r;
  r.kind_ = Kind::kSuccess;
  r.result_ = std::move(result);
  return r;
}

HandlerResult HandlerResult::RetryableFailure(
    std::string error, std::optional<std::chrono::milliseconds> retry_after) {
  HandlerResult r;
  r.kind_ = Kind::kRetryableFailure;
  r.error_ = std::move(error);
  r.retry_after_ = retry_after;
  return r;
}

HandlerResult HandlerResult::Snooze(std::chrono::milliseconds delay) {
  HandlerResult r;
  r.kind_ = Kind::kSnooze;
  r.snooze_delay_ = delay;
  return r;
}

HandlerResult HandlerResult::NonRetryableFailure(std::string error) {
  HandlerResult r;
  r.kind_ = Kind::kNonRetryableFailure;
  r.error_ = std::move(error);
  return r;
}

}  // namespace redrive::sdk
