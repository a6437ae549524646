// Auto-redrive policies on the wire (GET/PUT /api/v1/queues/{name}/autoredrive,
// GET /api/v1/autoredrive), both ways: the server encodes, the SDK decodes.
// Durations are whole seconds (cooldown_seconds, ...); the live state is the
// "state" object; "eligible_count" is how many dead jobs the policy may
// still revive now.
#pragma once

#include <boost/json/object.hpp>

#include "core/autoredrive.h"

namespace redrive::wire {

boost::json::object AutoredriveToJson(const AutoredrivePolicy& policy,
                                      const AutoredriveState& state, long long eligible);
// Lenient (json_read.h).
AutoredrivePolicy AutoredrivePolicyFromJson(const boost::json::object& o);
AutoredriveState AutoredriveStateFromJson(const boost::json::object& state);

}  // namespace redrive::wire
