// Queues and counts on the wire: GET /queues items, QueueConfig (PUT
// /queues/{name}/config, pause, resume) and the status counts of
// GET /jobs/stats.
#pragma once

#include <boost/json/object.hpp>
#include <optional>

#include "core/queue.h"

namespace redrive::wire {

// {pending, scheduled, processing, completed, deadletter, cancelled}.
boost::json::object StatusCountsToJson(const StatusCounts& counts);

// GET /jobs/stats: the counts plus "total", and "failed": 0 because Spooled's
// clients expect that key (Redrive has no "failed" status: a failure is
// either scheduled for retry or dead-lettered).
boost::json::object JobStatsToJson(const StatusCounts& counts);

// {completed_seconds, deadletter_seconds, cancelled_seconds}; null = forever.
boost::json::object RetentionToJson(const RetentionPolicy& retention);

// The queue's configuration. Spooled's QueueConfig carries "id" and
// "organization_id"; a Redrive queue is identified by its name, so "id" is
// the name.
boost::json::object QueueConfigToJson(const QueueConfig& config);

// A GET /queues item: the configuration plus "counts" and
// "oldest_deadletter_at". (Takes the parts of engine::QueueView rather than
// the struct so that wire, shared with the SDK, does not depend on engine.)
boost::json::object QueueViewToJson(const QueueConfig& config, const StatusCounts& counts,
                                    const std::optional<Instant>& oldest_deadletter_at);

}  // namespace redrive::wire
