#include "wire/operation_json.h"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>

#include "wire/json_read.h"
#include "wire/time_json.h"

namespace redrive::wire {
namespace {

boost::json::value OptionalString(const std::optional<std::string>& s) {
  if (!s) return nullptr;
  return boost::json::string(*s);
}

boost::json::value OptionalTime(const std::optional<Instant>& t) {
  if (!t) return nullptr;
  return TimeToJson(*t);
}

boost::json::value SelectorValue(const std::string& text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return boost::json::object();
  return v;
}

// A whole rate as an integer (400, not Boost.JSON's 4E2); others as doubles.
boost::json::value RateValue(const std::optional<double>& rate) {
  if (!rate) return nullptr;
  if (*rate == std::floor(*rate) && std::fabs(*rate) < 9e15) {
    return static_cast<int64_t>(*rate);
  }
  return *rate;
}

}  // namespace

boost::json::object OperationToJson(const Operation& op, Instant now) {
  boost::json::array statuses;
  for (JobStatus st : op.statuses) statuses.push_back(boost::json::string(JobStatusName(st)));
  const std::optional<Instant> eta = EstimatedFinish(op, now);
  boost::json::value eta_seconds = nullptr;
  if (eta) eta_seconds = std::chrono::duration_cast<std::chrono::seconds>(*eta - now).count();
  return boost::json::object{
      {"id", op.id},
      {"action", OperationActionName(op.action)},
      {"state", OperationStateName(op.state)},
      {"selector", SelectorValue(op.selector_json)},
      {"statuses", std::move(statuses)},
      {"rate_per_second", RateValue(op.rate_per_second)},
      {"budget", op.budget ? boost::json::value(RetryBudgetText(*op.budget)) : nullptr},
      {"target_queue", OptionalString(op.target_queue)},
      {"reason", OptionalString(op.reason)},
      {"created_by", op.created_by},
      {"matched", op.matched},
      {"done", op.done},
      {"failed", op.failed},
      {"remaining", OperationRemaining(op)},
      {"error", OptionalString(op.error)},
      {"created_at", TimeToJson(op.created_at)},
      {"started_at", OptionalTime(op.started_at)},
      {"finished_at", OptionalTime(op.finished_at)},
      {"next_batch_at", OptionalTime(op.next_batch_at)},
      {"eta_seconds", eta_seconds},
      {"estimated_finish_at", OptionalTime(eta)},
  };
}

Operation OperationFromJson(const boost::json::object& o) {
  Operation op;
  op.id = ReadStringOr(o, "id");
  op.action = ParseOperationAction(ReadStringOr(o, "action")).value_or(OperationAction::kRetry);
  op.state = ParseOperationState(ReadStringOr(o, "state")).value_or(OperationState::kQueued);
  if (const boost::json::object* sel = ReadObject(o, "selector")) {
    op.selector_json = boost::json::serialize(*sel);
  }
  if (const boost::json::value* sts = o.if_contains("statuses"); sts && sts->is_array()) {
    for (const boost::json::value& v : sts->get_array()) {
      if (!v.is_string()) continue;
      if (auto st = ParseJobStatus(std::string_view(v.get_string()))) op.statuses.push_back(*st);
    }
  }
  if (const boost::json::value* r = o.if_contains("rate_per_second"); r && r->is_number()) {
    op.rate_per_second = r->to_number<double>();
  }
  if (auto budget = ReadString(o, "budget")) op.budget = ParseRetryBudget(*budget);
  op.target_queue = ReadString(o, "target_queue");
  op.reason = ReadString(o, "reason");
  op.created_by = ReadStringOr(o, "created_by");
  op.matched = ReadIntOr(o, "matched", 0);
  op.done = ReadIntOr(o, "done", 0);
  op.failed = ReadIntOr(o, "failed", 0);
  op.error = ReadString(o, "error");
  op.created_at = ReadTime(o, "created_at").value_or(Instant{});
  op.updated_at = op.created_at;
  op.started_at = ReadTime(o, "started_at");
  op.finished_at = ReadTime(o, "finished_at");
  op.next_batch_at = ReadTime(o, "next_batch_at");
  return op;
}

}  // namespace redrive::wire
