#include "api/responses.h"

#include <boost/json/serialize.hpp>

namespace redrive::api {

Response JsonResponse(int status, const boost::json::value& body) {
  Response response;
  response.status = status;
  response.body = boost::json::serialize(body);
  return response;
}

Response NoContentResponse() {
  Response response;
  response.status = 204;
  response.content_type.clear();
  return response;
}

engine::StatusCallback AnswerNoContent(Responder respond) {
  return [respond = std::move(respond)](Status status) {
    respond(status.ok() ? NoContentResponse() : ErrorResponse(status));
  };
}

}  // namespace redrive::api
