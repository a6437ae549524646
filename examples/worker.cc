// A worker: squares the "n" of each job on QUEUE, two at a time, until
// SIGTERM or Ctrl-C, then stops gracefully (running jobs finish, the rest go
// back to the queue without a retry charged).
//
//   REDRIVE_URL=http://127.0.0.1:7070 example_worker squares
#include "redrive/worker.h"

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>

int main(int argc, char** argv) {
  redrive::ClientOptions client;
  if (const char* url = std::getenv("REDRIVE_URL")) client.server_url = url;
  if (const char* key = std::getenv("REDRIVE_API_KEY")) client.api_key = key;

  redrive::WorkerOptions options{.queue = argc > 1 ? argv[1] : "squares", .concurrency = 2};
  std::mutex out;  // handlers run on several threads
  redrive::Worker worker(client, options, [&](const redrive::JobContext& job) {
    const auto* n =
        job.payload().is_object() ? job.payload().as_object().if_contains("n") : nullptr;
    if (!n || !n->is_int64()) {
      return redrive::HandlerResult::NonRetryableFailure("payload needs an integer \"n\"");
    }
    const int64_t square = n->as_int64() * n->as_int64();
    {
      std::lock_guard lock(out);
      std::cout << "completed " << job.id() << " n=" << n->as_int64() << " square=" << square
                << std::endl;
    }
    return redrive::HandlerResult::Success({{"square", square}});
  });
  worker.OnDeath([&](const redrive::sdk::ClaimedJob& job, const redrive::sdk::FailResult&,
                     const std::string& error) {
    std::lock_guard lock(out);
    std::cerr << "job " << job.id << " is in the DLQ: " << error << std::endl;
  });

  redrive::Status status = worker.RunUntilSignal();
  if (!status.ok()) {
    std::cerr << "worker: " << status.ToString() << "\n";
    return 1;
  }
  std::cout << "stopped" << std::endl;
  return 0;
}
