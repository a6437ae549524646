// The contract's error body from the wire (the SDK's direction).
#pragma once

#include <boost/json/value.hpp>
#include <string_view>

#include "core/status.h"

namespace redrive::wire {

// The Status an error body {"code", "message", "details": {"field"}} stands
// for. `http_status` decides the code when the body has none (a proxy's HTML
// page, an empty body). Never returns an OK status.
Status ErrorFromJson(const boost::json::value& body, int http_status);

// The code the contract pairs with an HTTP status (409 → CONFLICT, …).
ErrorCode ErrorCodeForHttpStatus(int http_status);

}  // namespace redrive::wire
