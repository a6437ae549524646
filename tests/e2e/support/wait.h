// Waiting for a condition with a deadline (never a bare sleep): the server,
// workers and child processes work on their own threads.
#pragma once

#include <chrono>
#include <functional>

namespace redrive::e2e {

// Polls `condition` every 20 ms until it holds or `timeout` passes; then
// checks it once more.
bool WaitUntil(const std::function<bool()>& condition,
               std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace redrive::e2e
