// GET /api/v1/me [ext]: lets the console learn, before it shows anything,
// whether the server wants a key and what the presented key may do. Public
// (routed with kPublic | kOptionalKey) so a console without a key can ask; a
// key that is presented must still be valid (401 otherwise, checked and rate-
// limited before this handler runs, like on every route), so the answer never
// guesses and is no faster oracle for keys than any other route.
#include <boost/json/object.hpp>

#include "api/auth.h"
#include "api/handlers.h"
#include "api/responses.h"

namespace redrive::api {

void HandleMe(Call& call) {
  const bool auth_required = call.keys_required;
  boost::json::object body{{"auth_required", auth_required}, {"role", nullptr}};
  // No keys at all: everyone is admin. Keys but no header: not signed in. A
  // presented key was authenticated before this handler (401 if invalid).
  if (!auth_required || call.request.header("authorization") != nullptr) {
    body["role"] = RoleName(call.role);
  }
  call.respond(JsonResponse(200, body));
}

}  // namespace redrive::api
