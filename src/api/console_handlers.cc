// The web console: GET / (index.html) and GET /console/{file}, served from
// the files embedded in the binary (console_files.h).
#include "api/console_assets.h"
#include "api/handlers.h"

namespace redrive::api {

void HandleConsoleIndex(Call& call) {
  call.respond(ServeConsoleFile(ConsoleFiles(), "index.html", call.request));
}

void HandleConsoleFile(Call& call) {
  call.respond(ServeConsoleFile(ConsoleFiles(), call.Param("file"), call.request));
}

}  // namespace redrive::api
