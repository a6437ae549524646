// Schedules (cron jobs): list, create, read, update, delete, pause, resume,
// trigger, history, and the preview of an expression's fire times. Decoding
// is schedule_decoding.h; the JSON is wire/schedule_json.h.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/handlers.h"
#include "api/responses.h"
#include "api/schedule_decoding.h"
#include "cron/next_fire.h"
#include "wire/schedule_json.h"
#include "wire/time_json.h"

namespace redrive::api {
namespace {

Response ScheduleAnswer(Schedule& s) { return JsonResponse(200, wire::ScheduleToJson(s)); }

}  // namespace

void HandleListSchedules(Call& call) {
  Result<engine::ListSchedulesParams> p = DecodeListSchedules(call.query);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.ListSchedules(
      std::move(*p), Answer<std::vector<Schedule>>(call.respond, [](std::vector<Schedule>& ss) {
        boost::json::array out;
        for (const Schedule& s : ss) {
          out.push_back(wire::ScheduleToJson(s));
        }
        return JsonResponse(200, out);
      }));
}

void HandleCreateSchedule(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::CreateScheduleParams> p = DecodeCreateSchedule(*body, call.options.limits);
  if (!p.ok()) return call.Fail(p.status());
  // The whole schedule: a superset of Spooled's {id, name, cron_expression,
  // next_run_at}.
  call.engine.CreateSchedule(std::move(*p), Answer<Schedule>(call.respond, [](Schedule& s) {
                               return JsonResponse(201, wire::ScheduleToJson(s));
                             }));
}

void HandleGetSchedule(Call& call) {
  call.engine.GetSchedule(call.Param("id"), Answer<Schedule>(call.respond, ScheduleAnswer));
}

void HandleUpdateSchedule(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::SchedulePatch> patch = DecodeSchedulePatch(*body, call.options.limits);
  if (!patch.ok()) return call.Fail(patch.status());
  call.engine.UpdateSchedule(call.Param("id"), std::move(*patch),
                             Answer<Schedule>(call.respond, ScheduleAnswer));
}

void HandleDeleteSchedule(Call& call) {
  call.engine.DeleteSchedule(call.Param("id"), AnswerNoContent(call.respond));
}

void HandlePauseSchedule(Call& call) {
  call.engine.PauseSchedule(call.Param("id"), Answer<Schedule>(call.respond, ScheduleAnswer));
}

void HandleResumeSchedule(Call& call) {
  call.engine.ResumeSchedule(call.Param("id"), Answer<Schedule>(call.respond, ScheduleAnswer));
}

void HandleTriggerSchedule(Call& call) {
  call.engine.TriggerSchedule(
      call.Param("id"), Answer<ScheduleRun>(call.respond, [](ScheduleRun& run) {
        // Held back by the overlap policy (or a refused enqueue): the run is
        // in the history, but there is no job to answer with.
        if (!run.job_id) {
          return ErrorResponse(Status::Conflict(run.error.value_or("no job was enqueued")));
        }
        // Spooled's backend says triggered_at, its SDK's type scheduled_at.
        return JsonResponse(200,
                            boost::json::object{{"job_id", *run.job_id},
                                                {"triggered_at", wire::TimeToJson(run.fire_time)},
                                                {"scheduled_at", wire::TimeToJson(run.fire_time)},
                                                {"run_id", run.id}});
      }));
}

void HandleScheduleHistory(Call& call) {
  Result<HistoryPage> page = DecodeScheduleHistory(call.query);
  if (!page.ok()) return call.Fail(page.status());
  call.engine.ScheduleHistory(
      call.Param("id"), page->limit, page->offset,
      Answer<std::vector<engine::ScheduleHistoryEntry>>(
          call.respond, [](std::vector<engine::ScheduleHistoryEntry>& entries) {
            boost::json::array out;
            for (const engine::ScheduleHistoryEntry& e : entries) {
              out.push_back(wire::ScheduleRunToJson(e.run, e.job_status));
            }
            return JsonResponse(200, out);
          }));
}

void HandlePreviewSchedule(Call& call) {
  Result<SchedulePreviewQuery> q = DecodeSchedulePreview(call.query);
  if (!q.ok()) return call.Fail(q.status());
  // No engine call: nothing is read or stored. The fire times come from the
  // function the schedule service advances next_run_at with (cron::NextFire,
  // strictly after now), so they are the times a schedule made now fires at.
  boost::json::array times;
  for (Instant t :
       cron::NextFires(q->expression, q->zone, call.Now(), static_cast<std::size_t>(q->count))) {
    times.push_back(boost::json::string(cron::FormatLocal(t, q->zone)));
  }
  call.respond(JsonResponse(200, boost::json::object{{"cron_expression", q->cron_expression},
                                                     {"timezone", q->timezone},
                                                     {"next_run_times", std::move(times)}}));
}

}  // namespace redrive::api
