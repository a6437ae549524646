#include "store/postgres/pg_write_health.h"

#include <cstdio>
#include <optional>

namespace redrive::store::postgres {

bool IsWriteResourceError(std::string_view sqlstate) {
  return sqlstate.starts_with("53") || sqlstate.starts_with("58") || sqlstate == "25006";
}

uint64_t PgWriteHealth::CommitStarted(TimePoint now) {
  std::lock_guard lock(mu_);
  uint64_t token = next_token_++;
  waiting_.emplace(token, now);
  return token;
}

void PgWriteHealth::CommitFinished(uint64_t token, bool committed) {
  std::lock_guard lock(mu_);
  waiting_.erase(token);
  if (committed) failing_.clear();
}

void PgWriteHealth::RecordWriteError(std::string_view sqlstate, std::string_view message) {
  if (!IsWriteResourceError(sqlstate)) return;
  std::lock_guard lock(mu_);
  failing_ = std::string(message);
}

Status PgWriteHealth::Check(TimePoint now) const {
  std::lock_guard lock(mu_);
  // At most one commit per pooled connection waits: few to look at.
  std::optional<TimePoint> oldest;
  for (const auto& [token, started] : waiting_) {
    if (!oldest || started < *oldest) oldest = started;
  }
  if (oldest) {
    auto waited = now - *oldest;
    if (waited > stall_after_) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", std::chrono::duration<double>(waited).count());
      return Status::Unavailable(std::string("a commit to postgresql has waited ") + seconds +
                                 " s (a synchronous standby not answering?)");
    }
  }
  if (!failing_.empty()) return Status::Unavailable("postgresql cannot write: " + failing_);
  return Status::Ok();
}

bool PgWriteHealth::failing() const {
  std::lock_guard lock(mu_);
  return !failing_.empty();
}

}  // namespace redrive::store::postgres
