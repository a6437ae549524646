// GET /api/v1/throughput?queue_name= [ext]: the cluster's recent throughput
// history (Engine::Throughput: every node's samples, summed, read from the
// store), for the console's chart.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "engine/engine.h"
#include "wire/time_json.h"

namespace redrive::api {

void HandleThroughput(Call& call) {
  Result<std::optional<std::string>> queue = QueryQueueName(call.query);
  if (!queue.ok()) return call.Fail(queue.status());
  const long long interval_seconds = call.engine.throughput_interval().count();
  call.engine.Throughput(
      std::move(*queue),
      Answer<std::vector<ThroughputPoint>>(
          call.respond, [interval_seconds](std::vector<ThroughputPoint>& found) {
            boost::json::array points;
            for (const ThroughputPoint& p : found) {
              points.push_back(boost::json::object{{"at", wire::TimeToJson(p.at)},
                                                   {"enqueued", p.counts.enqueued},
                                                   {"completed", p.counts.completed},
                                                   {"failed", p.counts.failed},
                                                   {"deadlettered", p.counts.deadlettered}});
            }
            return JsonResponse(200, boost::json::object{{"interval_seconds", interval_seconds},
                                                         {"points", std::move(points)}});
          }));
}

}  // namespace redrive::api
