// GET /api/v1/throughput?queue_name= [ext]: the engine's recent throughput
// history (engine/throughput.h), for the console's chart.
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
  boost::json::array points;
  for (const engine::ThroughputPoint& p : call.engine.Throughput(*queue)) {
    points.push_back(boost::json::object{{"at", wire::TimeToJson(p.at)},
                                         {"enqueued", p.counts.enqueued},
                                         {"completed", p.counts.completed},
                                         {"failed", p.counts.failed},
                                         {"deadlettered", p.counts.deadlettered}});
  }
  call.respond(JsonResponse(
      200, boost::json::object{{"interval_seconds", call.engine.throughput_interval().count()},
                               {"points", std::move(points)}}));
}

}  // namespace redrive::api
