// Building responses, and turning an engine callback's Result into one.
#pragma once

#include <boost/json/value.hpp>
#include <exception>
#include <utility>

#include "api/error_mapping.h"
#include "api/http_types.h"
#include "core/status.h"
#include "engine/engine.h"

namespace redrive::api {

Response JsonResponse(int status, const boost::json::value& body);
Response NoContentResponse();  // 204, no body, no Content-Type

// The engine callback that answers `respond`: the error response for a
// failed Result, else encode(value) (a Response). Encoding runs on the
// engine's thread; an exception there becomes a 500 instead of escaping
// into the engine.
template <typename T, typename Encode>
engine::Callback<T> Answer(Responder respond, Encode encode) {
  return [respond = std::move(respond), encode = std::move(encode)](Result<T> result) {
    if (!result.ok()) return respond(ErrorResponse(result.status()));
    Response response;
    try {
      response = encode(result.value());
    } catch (const std::exception& e) {
      response = ErrorResponse(Status::Internal(std::string("encoding failed: ") + e.what()));
    }
    respond(std::move(response));
  };
}

// The engine callback that answers 204 on success.
engine::StatusCallback AnswerNoContent(Responder respond);

}  // namespace redrive::api
