// Operator audit log entries on the wire (GET /api/v1/audit), both ways: the
// server encodes, the SDK decodes.
#pragma once

#include <boost/json/object.hpp>

#include "core/audit.h"

namespace redrive::wire {

// "selector" is the selection's canonical JSON as a string (it may be cut);
// "client_address" is left out unless `with_client_address` (viewers).
boost::json::object AuditEntryToJson(const AuditEntry& entry, bool with_client_address);
// Lenient (json_read.h); "client_address" reads as "" when left out.
AuditEntry AuditEntryFromJson(const boost::json::object& o);

}  // namespace redrive::wire
