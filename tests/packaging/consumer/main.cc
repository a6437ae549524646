// `consumer URL`: the SDK used from another project. It asks the server at
// URL for its health, enqueues a job and reads it back, and prints one line
// per step; on an error it prints the SDK's error and exits 1.
#include <redrive/client.h>
#include <redrive/types.h>
#include <redrive/worker.h>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer URL\n";
    return 2;
  }
  redrive::Client client({.server_url = argv[1]});
  auto health = client.GetHealth();
  if (!health.ok()) {
    std::cout << "error: " << health.status().ToString() << "\n";
    return 1;
  }
  std::cout << "health: " << health->status << " " << health->version << "\n";

  auto enqueued = client.Enqueue({.queue_name = "consumer", .payload = {{"n", 7}}});
  if (!enqueued.ok()) {
    std::cout << "error: " << enqueued.status().ToString() << "\n";
    return 1;
  }
  auto job = client.GetJob(enqueued->id);
  if (!job.ok()) {
    std::cout << "error: " << job.status().ToString() << "\n";
    return 1;
  }
  std::cout << "job: " << job->queue_name << " " << redrive::JobStatusName(job->status) << " "
            << redrive::sdk::PayloadOf(*job) << "\n";
  return 0;
}
