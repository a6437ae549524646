// `redrive serve`'s flags on the command line: names, help, defaults and env
// twins. What the values mean is decided by server::MakeServeConfig.
#pragma once

#include "server/serve_config.h"

namespace CLI {
class App;
}

namespace redrive::app {

// Registers every serve flag on `serve`, writing into `flags` when parsed.
// `flags` must outlive parsing.
void AddServeFlags(CLI::App& serve, server::ServeFlags& flags);

}  // namespace redrive::app
