#include "core/limits.h"

namespace redrive {

bool IsValidQueueName(std::string_view name) {
  if (name.empty() || name.size() > kMaxQueueNameLength) return false;
  if (name.front() == '.' || name.front() == '-') return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string QueueLimitMessage(std::string_view queue_name, size_t max_queues) {
  return "cannot create queue " + std::string(queue_name) + ": the server already holds " +
         std::to_string(max_queues) +
         " queues, its limit (--max-queues); delete unused queues or raise the limit";
}

std::string WebhookLimitMessage(size_t max_webhooks) {
  return "cannot create webhook: the server already holds " + std::to_string(max_webhooks) +
         " webhooks, its limit (--max-webhooks); delete unused webhooks or raise the limit";
}

}  // namespace redrive
