// `redrive serve`: opens the store, starts the engine, the API and the HTTP
// server, then runs until SIGINT/SIGTERM and shuts down gracefully.
#pragma once

#include "server/serve_config.h"

namespace redrive::app {

// Returns the process exit code: 0 after a graceful shutdown, 1 if the store
// or the listening socket cannot be set up (after one line on stderr).
// REQUIRES: no other thread has been started yet (signal handling).
int RunServe(const server::ServeConfig& config);

}  // namespace redrive::app
