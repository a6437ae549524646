// SIGINT/SIGTERM handling without async-signal-safety pitfalls: the signals
// are blocked and then received synchronously (sigwait / signalfd), so the
// code that reacts to them is ordinary code on an ordinary thread.
#pragma once

#include <functional>
#include <thread>

namespace redrive::server {

// Blocks SIGINT and SIGTERM in the calling thread and, by inheritance, in
// every thread it starts afterwards.
// REQUIRES: called before any other thread is started (a thread that does not
// block them would die of the default action instead).
void BlockTerminationSignals();

// Waits until SIGINT or SIGTERM arrives; returns the signal number.
// REQUIRES: BlockTerminationSignals() was called.
int WaitForTerminationSignal();

// Runs `on_signal(signo)` on its own thread for each SIGINT/SIGTERM that
// arrives while it exists. The callback must not destroy the watcher.
// REQUIRES: BlockTerminationSignals() was called.
class SignalWatcher {
 public:
  explicit SignalWatcher(std::function<void(int)> on_signal);
  ~SignalWatcher();  // stops watching and joins the thread
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  int signal_fd_ = -1;
  int wake_fd_ = -1;  // an eventfd that tells the thread to exit
  std::thread thread_;
};

}  // namespace redrive::server
