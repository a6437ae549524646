// The contract's limits on inputs, and validators for them. Configurable limits
// (payload, body, tag and worker metadata sizes) live in ServerLimits; the
// rest are fixed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace redrive {

inline constexpr int kMinPriority = -100, kMaxPriority = 100;
inline constexpr int kMinMaxRetries = 0, kMaxMaxRetries = 100;
inline constexpr int kMinTimeoutSeconds = 1, kMaxTimeoutSeconds = 86400;
inline constexpr int kMinLeaseSeconds = 5, kMaxLeaseSeconds = 3600;
inline constexpr int kDefaultLeaseSeconds = 30;
inline constexpr int kHeartbeatIntervalSeconds = 10;
inline constexpr long long kMaxBackoffMs = 86'400'000;
inline constexpr long long kMaxJitterMs = 60'000;
inline constexpr size_t kMaxQueueNameLength = 100;
inline constexpr size_t kMaxIdempotencyKeyLength = 255;
inline constexpr int kMaxClaimLimit = 100;
inline constexpr int kDefaultListWorkersLimit = 100, kMaxListWorkersLimit = 1000;
inline constexpr int kMaxWaitMs = 30'000;
inline constexpr size_t kMaxBulkJobs = 1000;
inline constexpr size_t kMaxAcks = 1000;
// A fail's `details` object [ext], serialized (exit code, signal: a few fields).
inline constexpr size_t kMaxFailDetailsBytes = 1024;
inline constexpr int kDefaultMaxRetries = 3;
// Lost leases (crashes) before a job is quarantined; 0 turns quarantine off.
inline constexpr int kMinCrashLimit = 0, kMaxCrashLimit = 100;
inline constexpr int kDefaultCrashLimit = 3;
// Snoozes a job may take ("not now"), and how far one may push it.
inline constexpr int kMinMaxSnoozes = 0, kMaxMaxSnoozes = 1000;
inline constexpr int kDefaultMaxSnoozes = 25;
inline constexpr long long kMaxSnoozeDelayMs = 7LL * 86'400'000;  // 7 days
// A redrive's `extend:N` budget: N more retries, 1..kMaxRetryExtend (the
// result is capped at kMaxMaxRetries).
inline constexpr int kMaxRetryExtend = 100;
inline constexpr int kDefaultTimeoutSeconds = 300;
// Deepest JSON nesting accepted in a request and read back from the store.
inline constexpr size_t kMaxJsonDepth = 128;

struct ServerLimits {
  size_t max_payload_bytes = 1 << 20;  // serialized payload
  size_t max_body_bytes = 16 << 20;    // HTTP request body
  // A job's tags are copied into every listing, claim and webhook body, so
  // they are bounded well below a payload: count, key and value length (UTF-8
  // bytes) and the serialized object ({"k":"v",...}).
  size_t max_tags = 32;
  size_t max_tag_key_bytes = 64;
  size_t max_tag_value_bytes = 256;
  size_t max_tags_bytes = 4096;
  // A worker's serialized metadata (register and heartbeat); every
  // GET /workers page carries it.
  size_t max_worker_metadata_bytes = 16 << 10;
  // Queues a store holds at once. Any key that may enqueue creates queues by
  // naming them, and each costs a row and per-queue counters on every node:
  // beyond this, a job for a new queue is refused (CONFLICT) until a queue is
  // deleted.
  size_t max_queues = 10'000;
  // Webhooks a store holds at once. Every job event writes one outbox row
  // per subscribed webhook in the event's own transaction, so this bounds
  // the rows one change can write (a sweep of a few hundred expired leases
  // with thousands of webhooks held every write for seconds).
  size_t max_webhooks = 100;
};

// The message of the CONFLICT a store answers when making one more queue
// would pass `max_queues` (WriteTx::EnsureQueue).
std::string QueueLimitMessage(std::string_view queue_name, size_t max_queues);
// The message of the CONFLICT a store answers when creating one more webhook
// would pass `max_webhooks` (WriteTx::InsertWebhook).
std::string WebhookLimitMessage(size_t max_webhooks);

// 1–100 chars of [A-Za-z0-9._-], not starting with '.' or '-'.
bool IsValidQueueName(std::string_view name);

}  // namespace redrive
