#include "server/signals.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <system_error>

namespace redrive::server {
namespace {

sigset_t TerminationSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

[[noreturn]] void ThrowErrno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

void BlockTerminationSignals() {
  sigset_t set = TerminationSignals();
  if (int err = pthread_sigmask(SIG_BLOCK, &set, nullptr); err != 0) {
    throw std::system_error(err, std::generic_category(), "pthread_sigmask");
  }
}

int WaitForTerminationSignal() {
  sigset_t set = TerminationSignals();
  int signo = 0;
  while (true) {
    int err = sigwait(&set, &signo);
    if (err == 0) return signo;
    if (err != EINTR) throw std::system_error(err, std::generic_category(), "sigwait");
  }
}

SignalWatcher::SignalWatcher(std::function<void(int)> on_signal) {
  sigset_t set = TerminationSignals();
  signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC);
  if (signal_fd_ < 0) ThrowErrno("signalfd");
  wake_fd_ = eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    close(signal_fd_);
    ThrowErrno("eventfd");
  }
  thread_ = std::thread([this, on_signal = std::move(on_signal)] {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    while (true) {
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      signalfd_siginfo info;
      if (read(signal_fd_, &info, sizeof info) == sizeof info) {
        on_signal(static_cast<int>(info.ssi_signo));
      }
    }
  });
}

SignalWatcher::~SignalWatcher() {
  uint64_t one = 1;
  // Cannot fail in a way we could handle: the counter cannot overflow here.
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);
  thread_.join();
  close(signal_fd_);
  close(wake_fd_);
}

}  // namespace redrive::server
