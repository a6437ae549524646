// The route table: every route of shared/spec/api.md this server answers.
#pragma once

#include <vector>

#include "api/router.h"

namespace redrive::api {

std::vector<Route> AllRoutes();

}  // namespace redrive::api
