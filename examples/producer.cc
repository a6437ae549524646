// A producer: enqueues COUNT jobs {"n": i} on QUEUE and prints their ids.
//
//   REDRIVE_URL=http://127.0.0.1:7070 example_producer squares 5
#include <cstdlib>
#include <iostream>
#include <string>

#include "redrive/client.h"

int main(int argc, char** argv) {
  const std::string queue = argc > 1 ? argv[1] : "squares";
  const int count = argc > 2 ? std::atoi(argv[2]) : 5;

  redrive::ClientOptions options;
  if (const char* url = std::getenv("REDRIVE_URL")) options.server_url = url;
  if (const char* key = std::getenv("REDRIVE_API_KEY")) options.api_key = key;
  redrive::Client client(options);

  for (int i = 1; i <= count; ++i) {
    auto job = client.Enqueue({.queue_name = queue,
                               .payload = {{"n", i}},
                               .max_retries = 2,
                               .tags = {{"source", "example"}}});
    if (!job.ok()) {
      std::cerr << "enqueue failed: " << job.status().ToString() << "\n";
      return 1;
    }
    std::cout << "enqueued " << job->id << "\n";
  }
  return 0;
}
