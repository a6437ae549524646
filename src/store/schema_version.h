// What both stores answer when a database's schema is newer than the binary
// knows: Migrate refuses it, whatever the store.
#pragma once

#include <string>

#include "core/status.h"

namespace redrive::store {

// SERVICE_UNAVAILABLE: the database is at schema `current`, past this
// binary's `latest`.
inline Status NewerSchemaThanBinary(int current, int latest) {
  return Status::Unavailable("database schema version " + std::to_string(current) +
                             " is newer than this binary supports (" + std::to_string(latest) +
                             "); upgrade Redrive");
}

}  // namespace redrive::store
