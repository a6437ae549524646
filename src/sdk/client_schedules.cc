// Client: schedules (cron jobs), /api/v1/schedules.
#include <boost/json/value_from.hpp>

#include "core/time_format.h"
#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "wire/json_read.h"
#include "wire/schedule_json.h"

namespace redrive::sdk {
namespace {

boost::json::object SpecToJson(const ScheduleSpec& s) {
  boost::json::object o;
  auto put = [&o](std::string_view key, const auto& value) {
    if (value) o[key] = boost::json::value_from(*value);
  };
  put("name", s.name);
  put("description", s.description);
  put("cron_expression", s.cron_expression);
  put("timezone", s.timezone);
  put("queue_name", s.queue_name);
  if (s.payload_template) o["payload_template"] = *s.payload_template;
  put("priority", s.priority);
  put("max_retries", s.max_retries);
  put("timeout_seconds", s.timeout_seconds);
  if (s.tags) {
    boost::json::object tags;
    for (const auto& [k, v] : *s.tags) tags[k] = v;
    o["tags"] = std::move(tags);
  }
  if (s.metadata) o["metadata"] = *s.metadata;
  put("is_active", s.is_active);
  put("missed_run_policy", s.missed_run_policy);
  put("overlap_policy", s.overlap_policy);
  put("backfill_limit", s.backfill_limit);
  return o;
}

Result<Schedule> ScheduleFromValue(const boost::json::value& v) {
  if (!v.is_object()) return Status::Internal("malformed schedule in the server's answer");
  return wire::ScheduleFromJson(v.get_object());
}

Result<ScheduleHistoryItem> HistoryItemFromValue(const boost::json::value& v) {
  if (!v.is_object()) return Status::Internal("malformed schedule run in the server's answer");
  Result<wire::ScheduleRunView> view = wire::ScheduleRunFromJson(v.get_object());
  if (!view.ok()) return view.status();
  return ScheduleHistoryItem{.run = std::move(view->run),
                             .status = std::move(view->status),
                             .job_status = std::move(view->job_status)};
}

Result<ScheduleTrigger> TriggerFromValue(const boost::json::value& v) {
  const auto* o = v.if_object();
  std::optional<std::string> job_id = o ? wire::ReadString(*o, "job_id") : std::nullopt;
  if (!job_id) return Status::Internal("malformed trigger answer: no job_id");
  return ScheduleTrigger{.job_id = std::move(*job_id),
                         .triggered_at = wire::ReadTime(*o, "triggered_at").value_or(Instant{})};
}

// {"next_run_times": ["2027-03-07T02:30:00+01:00", ...]}.
Result<std::vector<Instant>> PreviewFromValue(const boost::json::value& v) {
  const auto* o = v.if_object();
  const auto* times =
      o && o->contains("next_run_times") ? o->at("next_run_times").if_array() : nullptr;
  if (times == nullptr) return Status::Internal("malformed preview answer: no next_run_times");
  std::vector<Instant> out;
  for (const boost::json::value& t : *times) {
    std::optional<Instant> at = t.is_string() ? ParseTime(t.get_string()) : std::nullopt;
    if (!at) return Status::Internal("malformed preview answer: a fire time is no time");
    out.push_back(*at);
  }
  return out;
}

}  // namespace

Result<std::vector<Schedule>> Client::ListSchedules(const ListSchedulesFilter& filter) {
  Query q;
  if (filter.is_active) {
    q.Add("is_active", std::optional<std::string>(*filter.is_active ? "true" : "false"));
  }
  q.Add("queue_name", filter.queue_name).Add("limit", filter.limit).Add("offset", filter.offset);
  return impl_->CallList<Schedule>("/schedules" + q.str(), &ScheduleFromValue);
}

Result<Schedule> Client::GetSchedule(const std::string& id) {
  return impl_->Call<Schedule>("GET", PathWithId("/schedules/", id), std::nullopt,
                               &ScheduleFromValue);
}

Result<Schedule> Client::CreateSchedule(const ScheduleSpec& spec) {
  return impl_->Call<Schedule>("POST", "/schedules", SpecToJson(spec), &ScheduleFromValue);
}

Result<Schedule> Client::UpdateSchedule(const std::string& id, const ScheduleSpec& spec) {
  return impl_->Call<Schedule>("PUT", PathWithId("/schedules/", id), SpecToJson(spec),
                               &ScheduleFromValue);
}

Status Client::DeleteSchedule(const std::string& id) {
  return impl_->Json("DELETE", PathWithId("/schedules/", id)).status();
}

Result<Schedule> Client::PauseSchedule(const std::string& id) {
  return impl_->Call<Schedule>("POST", PathWithId("/schedules/", id, "/pause"),
                               boost::json::object{}, &ScheduleFromValue);
}

Result<Schedule> Client::ResumeSchedule(const std::string& id) {
  return impl_->Call<Schedule>("POST", PathWithId("/schedules/", id, "/resume"),
                               boost::json::object{}, &ScheduleFromValue);
}

Result<ScheduleTrigger> Client::TriggerSchedule(const std::string& id) {
  return impl_->Call<ScheduleTrigger>("POST", PathWithId("/schedules/", id, "/trigger"),
                                      boost::json::object{}, &TriggerFromValue);
}

Result<std::vector<Instant>> Client::PreviewSchedule(const std::string& cron_expression,
                                                     std::optional<std::string> timezone,
                                                     std::optional<int> count) {
  Query q;
  q.Add("cron_expression", std::optional<std::string>(cron_expression))
      .Add("timezone", timezone)
      .Add("count", count);
  return impl_->Call<std::vector<Instant>>("GET", "/schedules/preview" + q.str(), std::nullopt,
                                           &PreviewFromValue);
}

Result<std::vector<ScheduleHistoryItem>> Client::ScheduleHistory(const std::string& id,
                                                                 std::optional<int> limit,
                                                                 std::optional<int> offset) {
  Query q;
  q.Add("limit", limit).Add("offset", offset);
  return impl_->CallList<ScheduleHistoryItem>(PathWithId("/schedules/", id, "/history") + q.str(),
                                              &HistoryItemFromValue);
}

}  // namespace redrive::sdk
