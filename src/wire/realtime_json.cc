#include "wire/realtime_json.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "wire/json_text.h"
#include "wire/time_json.h"

namespace redrive::wire {

namespace {

std::string Envelope(std::string_view type, boost::json::object data) {
  boost::json::object out;
  out["type"] = type;
  out["data"] = std::move(data);
  return boost::json::serialize(out);
}

}  // namespace

std::string RealtimeEventJson(const RealtimeEvent& e, bool include_payloads) {
  boost::json::object data;
  // Who the event is about, first: a worker or a job, and its queue.
  const bool about_worker = e.type == RealtimeEventType::kWorkerRegistered ||
                            e.type == RealtimeEventType::kWorkerDeregistered;
  if (about_worker) {
    data["worker_id"] = e.worker_id;
  } else {
    data["job_id"] = e.job_id;
  }
  data["queue_name"] = e.queue_name;
  switch (e.type) {
    case RealtimeEventType::kJobCreated:
      data["priority"] = e.priority;
      break;
    case RealtimeEventType::kJobStatusChange:
      data["old_status"] = JobStatusName(e.old_status);
      data["new_status"] = JobStatusName(e.new_status);
      break;
    case RealtimeEventType::kJobCompleted:
      data["duration_ms"] = e.duration_ms;
      if (include_payloads && e.result) data["result"] = EmbedJsonText(*e.result);
      break;
    case RealtimeEventType::kJobFailed:
      data["error"] = e.error;
      data["retry_count"] = e.retry_count;
      data["will_retry"] = e.will_retry;
      break;
    case RealtimeEventType::kWorkerRegistered:
    case RealtimeEventType::kWorkerDeregistered:
      break;
  }
  data["timestamp"] = TimeToJson(e.at);
  return Envelope(RealtimeEventTypeName(e.type), std::move(data));
}

std::string PingEventJson(Instant now) {
  boost::json::object data;
  data["timestamp"] = TimeToJson(now);
  return Envelope("Ping", std::move(data));
}

std::string ErrorEventJson(std::string_view message, Instant now) {
  boost::json::object data;
  data["message"] = message;
  data["timestamp"] = TimeToJson(now);
  return Envelope("Error", std::move(data));
}

}  // namespace redrive::wire
