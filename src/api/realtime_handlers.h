// The live event routes (realtime_handlers.cc): Spooled's SSE streams and
// its WebSocket. Declared apart from handlers.h so that only the route table
// and their own file see them.
#pragma once

#include "api/call.h"

namespace redrive::api {

void HandleEvents(Call& call);           // GET /api/v1/events (SSE)
void HandleJobEvents(Call& call);        // GET /api/v1/events/jobs/{id} (SSE)
void HandleQueueEvents(Call& call);      // GET /api/v1/events/queues/{name} (SSE)
void HandleWebSocketEvents(Call& call);  // GET /api/v1/ws (WebSocket upgrade)

// A realtime route's target whose query carries the credential (`token` or
// `api_key`: browsers' EventSource and WebSocket cannot send headers): the
// request with it as its Authorization header, when it has none.
void AdoptQueryCredential(Request& request);

}  // namespace redrive::api
