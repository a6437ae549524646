// Worker: the public facade and the runtime's lifecycle (start, graceful stop).
#include "redrive/worker.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "sdk/worker_impl.h"

namespace redrive::sdk {
namespace {

std::string Hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

// Unique per process even for several workers: host-pid-n.
std::string DefaultWorkerId(const std::string& hostname) {
  static std::atomic<int> n{0};
  return hostname + "-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

}  // namespace

int EffectivePrefetch(const WorkerOptions& options) {
  if (options.prefetch >= 0) return options.prefetch;
  return options.concurrency > 1 ? std::max(1, options.concurrency / 4) : 0;
}

Worker::Impl::Impl(std::shared_ptr<Client> client, WorkerOptions options, Handler handler)
    : client_(std::move(client)),
      claim_client_(client_->options()),
      options_(std::move(options)),
      handler_(std::move(handler)) {}

Worker::Impl::~Impl() { Stop(); }

Status Worker::Impl::Start() {
  {
    std::lock_guard lock(mu_);
    if (started_) return Status::Conflict("worker already started");
  }
  if (options_.queue.empty()) return Status::Validation("queue", "queue is required");
  if (options_.concurrency < 1) {
    return Status::Validation("concurrency", "concurrency must be at least 1");
  }
  if (options_.prefetch < -1) {
    return Status::Validation("prefetch", "prefetch must be -1 (the default), 0 or more");
  }
  if (options_.max_ack_delay < std::chrono::milliseconds(0)) {
    return Status::Validation("max_ack_delay", "max_ack_delay must not be negative");
  }
  RegisterWorkerRequest request;
  request.queue_name = options_.queue;
  request.hostname = options_.hostname.empty() ? Hostname() : options_.hostname;
  request.worker_type = options_.worker_type;
  request.max_concurrency = options_.concurrency;
  if (!options_.version.empty()) request.version = options_.version;
  request.worker_id =
      options_.worker_id.empty() ? DefaultWorkerId(request.hostname) : options_.worker_id;
  auto registration = client_->RegisterWorker(request);
  if (!registration.ok()) return registration.status();
  worker_id = registration->id;

  std::lock_guard lock(mu_);
  started_ = true;
  prefetch_ = EffectivePrefetch(options_);
  claimer_ = std::thread([this] { ClaimLoop(); });
  if (options_.batch_acks) acker_ = std::thread([this] { AckLoop(); });
  heartbeater_ = std::thread([this] { HeartbeatLoop(); });
  for (int i = 0; i < options_.concurrency; ++i) slots_.emplace_back([this] { SlotLoop(); });
  return Status::Ok();
}

Status Worker::Impl::Stop() {
  {
    std::lock_guard lock(mu_);
    if (!started_ || stopping_) {
      // A second Stop() (or the destructor after Stop) just reports.
      return stop_status_;
    }
    stopping_ = true;
    // Jobs claimed but not started are never run. They stay held, and
    // heartbeated, until deregistration puts them back to pending without
    // charging a retry: a lease running out before that would charge one.
    buffered_.clear();
  }
  cv_.notify_all();
  // Ends the claimer's long poll now rather than after claim_wait. A claim
  // that carries acks does not wait, and is let finish: its answers count.
  claim_stop_.request_stop();
  claimer_.join();

  {  // Give running handlers the grace period to finish and report.
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, options_.grace_period, [&] { return ActiveJobsLocked() == 0; });
    for (auto& [id, held] : held_) {
      if (held->state == HeldState::kRunning) MarkLostLocked(*held, /*lease_lost=*/false);
    }
    // Under the same lock as the marking above: no outcome is queued after
    // this, and the acker sends every one queued before it.
    acker_exit_ = true;
  }
  cv_.notify_all();
  if (acker_.joinable()) acker_.join();
  {
    std::lock_guard lock(mu_);
    heartbeat_exit_ = true;
  }
  cv_.notify_all();
  // Stop heartbeating before deregistering: a worker heartbeat after it
  // would bring the worker back.
  heartbeater_.join();
  Status status = client_->DeregisterWorker(worker_id);

  {
    std::lock_guard lock(mu_);
    slots_exit_ = true;
  }
  cv_.notify_all();
  for (auto& slot : slots_) slot.join();  // handlers whose tokens were cancelled

  std::lock_guard lock(mu_);
  stop_status_ = status;
  stopped_ = true;
  cv_.notify_all();
  return status;
}

Status Worker::Impl::Run() {
  REDRIVE_RETURN_IF_ERROR(Start());
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopped_; });
  return stop_status_;
}

WorkerStats Worker::Impl::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

int Worker::Impl::started_jobs() const {
  std::lock_guard lock(mu_);
  return ActiveJobsLocked();
}

Worker::Worker(WorkerOptions options, Handler handler)
    : Worker(ClientOptions{}, std::move(options), std::move(handler)) {}

Worker::Worker(ClientOptions client, WorkerOptions options, Handler handler)
    : Worker(std::make_shared<Client>(std::move(client)), std::move(options), std::move(handler)) {}

Worker::Worker(std::shared_ptr<Client> client, WorkerOptions options, Handler handler)
    : impl_(std::make_unique<Impl>(std::move(client), std::move(options), std::move(handler))) {}

Worker::~Worker() = default;

void Worker::OnDeath(DeathCallback callback) { impl_->on_death = std::move(callback); }
void Worker::OnError(ErrorCallback callback) { impl_->on_error = std::move(callback); }
Status Worker::Start() { return impl_->Start(); }
Status Worker::Stop() { return impl_->Stop(); }
Status Worker::Run() { return impl_->Run(); }

Status Worker::RunUntilSignal() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  // Blocked before Start() so every runtime thread inherits the mask and the
  // signal can only be taken by sigwait below.
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  REDRIVE_RETURN_IF_ERROR(Start());
  int signal = 0;
  sigwait(&signals, &signal);
  return Stop();
}

const std::string& Worker::worker_id() const { return impl_->worker_id; }
WorkerStats Worker::stats() const { return impl_->stats(); }
int Worker::running_jobs() const { return impl_->started_jobs(); }

}  // namespace redrive::sdk
