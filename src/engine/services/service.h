// The one shape of every background service: RunOnce(now) does a bounded
// batch of work and says what it did and when it next needs to run. The
// background loop drives them; tests call RunOnce directly with a manual clock.
// A service names the duty it performs (services/duties.h): on nodes sharing
// a database the loop runs it only while this node leads that duty.
#pragma once

#include <optional>

#include "core/clock.h"

namespace redrive::engine {

struct ServiceRun {
  long long changed = 0;            // jobs (or rows) the pass changed
  bool more = false;                // the batch was full: run again at once
  std::optional<Instant> next_run;  // when there will be work; unset = unknown
};

class Service {
 public:
  virtual ~Service() = default;
  virtual const char* name() const = 0;
  // The duty (duty::k...) only its leader runs; nullptr: a per-node service,
  // run on every node (it works on this node's own state).
  virtual const char* duty() const = 0;
  // REQUIRES: not called concurrently with itself.
  virtual ServiceRun RunOnce(Instant now) = 0;
};

}  // namespace redrive::engine
