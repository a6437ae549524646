#include "core/new_job.h"

#include "core/ids.h"
#include "core/transition.h"

namespace redrive {

NewJob MakeNewJob(const NewJobParams& p, const QueueConfig& queue, Instant now, Random& random,
                  UuidV7Sequence& job_ids) {
  NewJob out;
  Job& job = out.job;
  job.id = job_ids.Next(now, random);
  job.queue_name = p.queue_name;
  job.payload = p.payload_json;
  job.priority = p.priority.value_or(0);
  job.max_retries = p.max_retries.value_or(queue.max_retries);
  job.timeout_seconds = p.timeout_seconds.value_or(queue.default_timeout);
  job.backoff = p.backoff.value_or(queue.backoff);
  job.crash_limit = p.crash_limit.value_or(queue.crash_limit);
  job.max_snoozes = p.max_snoozes.value_or(queue.max_snoozes);
  job.tags = p.tags;
  job.idempotency_key = p.idempotency_key;
  job.completion_webhook = p.completion_webhook;
  job.created_at = job.updated_at = now;
  job.scheduled_at = p.scheduled_at.value_or(now);
  job.status = job.scheduled_at > now ? JobStatus::kScheduled : JobStatus::kPending;
  job.expires_at = p.expires_at;

  out.created = CreatedHistory(job, now, random);
  return out;
}

}  // namespace redrive
