// GET /api/v1/dashboard: Spooled's summary (system, jobs by status, queues,
// workers, recent activity), computed from one bounded read
// (Engine::Dashboard): the per-queue status counts, at most
// kMaxListWorkersLimit workers and the last hour of throughput samples.
// Never a scan of the jobs.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/handlers.h"
#include "api/responses.h"
#include "engine/engine.h"
#include "wire/queue_json.h"
#include "wire/time_json.h"

namespace redrive::api {
namespace {

// Spooled's JobSummaryStats; the counts of every status are added [ext].
// The 24-hour figures come from the hourly totals of every queue and node
// (as GET /queues/{name}/stats'); failed_24h counts jobs that failed for good
// (dead-lettered).
boost::json::object JobsJson(const engine::DashboardView& v) {
  StatusCounts all;
  for (const engine::QueueView& q : v.queues) {
    StatusCounts counts = q.counts;
    for (JobStatus s : kAllStatuses) all.of(s) += counts.of(s);
  }
  const JobCounts& day = v.last_day;
  boost::json::object out{
      {"total", all.total()},
      {"pending", all.pending},
      {"processing", all.processing},
      {"completed_24h", day.completed},
      {"failed_24h", day.deadlettered},
      {"deadletter", all.deadletter},
      {"avg_wait_time_ms", wire::AverageMillisToJson(day.waiting, day.claimed)},
      {"avg_processing_time_ms", wire::AverageMillisToJson(day.processing, day.completed)}};
  out["by_status"] = wire::StatusCountsToJson(all);
  return out;
}

// Spooled's QueueSummary, one per queue, by name.
boost::json::array QueuesJson(const engine::DashboardView& v) {
  boost::json::array out;
  for (const engine::QueueView& q : v.queues) {
    out.push_back(boost::json::object{{"name", q.config.queue_name},
                                      {"pending", q.counts.pending},
                                      {"processing", q.counts.processing},
                                      {"paused", q.config.paused || !q.config.enabled}});
  }
  return out;
}

// Spooled counts the workers heard from lately: here, those not offline.
boost::json::object WorkersJson(const engine::DashboardView& v) {
  long long total = 0, healthy = 0;
  for (const WorkerInfo& w : v.workers) {
    if (w.status == "offline") continue;
    ++total;
    if (w.status == "healthy") ++healthy;
  }
  return {{"total", total}, {"healthy", healthy}, {"unhealthy", total - healthy}};
}

boost::json::object RecentJson(const engine::DashboardView& v) {
  // "failed" in Spooled's sense: jobs that failed for good (dead-lettered).
  return {{"jobs_created_1h", v.recent.enqueued},
          {"jobs_completed_1h", v.recent.completed},
          {"jobs_failed_1h", v.recent.deadlettered},
          {"failed_attempts_1h", v.recent.failed},
          {"window_seconds", v.activity_window.count()}};
}

}  // namespace

void HandleDashboard(Call& call) {
  call.engine.Dashboard(Answer<engine::DashboardView>(
      call.respond, [version = call.options.version](engine::DashboardView& v) {
        const long long uptime =
            std::chrono::duration_cast<std::chrono::seconds>(v.now - v.started_at).count();
        boost::json::object system{{"version", version},
                                   {"uptime_seconds", uptime < 0 ? 0 : uptime},
                                   {"started_at", wire::TimeToJson(v.started_at)},
                                   {"database_status", "healthy"},
                                   {"cache_status", "healthy"},
                                   {"environment", "self-hosted"}};
        return JsonResponse(200, boost::json::object{{"system", std::move(system)},
                                                     {"jobs", JobsJson(v)},
                                                     {"queues", QueuesJson(v)},
                                                     {"workers", WorkersJson(v)},
                                                     {"recent_activity", RecentJson(v)}});
      }));
}

}  // namespace redrive::api
