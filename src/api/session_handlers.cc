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
  const bool auth_required = !call.options.keys.empty();
  boost::json::object body{{"auth_required", auth_required}, {"role", nullptr}};
  // No keys configured: everyone is admin. Keys but no header: not signed in.
  if (!auth_required || call.request.header("authorization") != nullptr) {
    Result<Role> role = Authenticate(call.request, call.options.keys);
    if (!role.ok()) return call.Fail(role.status());
    body["role"] = RoleName(*role);
  }
  call.respond(JsonResponse(200, body));
}

}  // namespace redrive::api
