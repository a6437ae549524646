// The one shape of every background service: RunOnce(now) does a bounded
// batch of work and says what it did and when it next needs to run. The
// background loop drives them; tests call RunOnce directly with a manual clock.
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
  // REQUIRES: not called concurrently with itself.
  virtual ServiceRun RunOnce(Instant now) = 0;
};

}  // namespace redrive::engine
