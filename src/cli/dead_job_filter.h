// Which dead jobs a `redrive dlq` command is about: the filters every DLQ
// command shares (--queue, --reason, --tag, --error-prefix, --fingerprint),
// copied into the SDK's requests or an operation's selector, said in words,
// and what to answer when they match nothing: the DLQ's error classes
// closest to what was asked.
#pragma once

#include <CLI/CLI.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "cli/cli_context.h"
#include "core/job.h"

namespace redrive::cli {

// `text`, or nullopt when it is empty (a flag not given).
std::optional<std::string> NonEmpty(const std::string& text);

// The filters every DLQ command shares: which dead jobs it is about.
struct DeadJobFilterFlags {
  std::string queue, reason, tag, error_prefix, fingerprint;
};

// Registers the five filter options on `cmd`; `queue_help` describes --queue.
void AddFilterOptions(CLI::App* cmd, DeadJobFilterFlags& f, const std::string& queue_help);

// Copies the filters into any SDK filter or request that has the four fields.
template <typename Request>
void ApplyFilter(const DeadJobFilterFlags& f, Request& out) {
  out.queue_name = NonEmpty(f.queue);
  if (!f.reason.empty()) out.dead_reason = ParseDeadReason(f.reason);
  out.tag = NonEmpty(f.tag);
  out.error_prefix = NonEmpty(f.error_prefix);
  out.fingerprint = NonEmpty(f.fingerprint);
}

// The selector of a bulk operation (POST /operations) for these filters.
boost::json::object SelectorOf(const DeadJobFilterFlags& f);

// Whether any filter is given.
bool HasFilter(const DeadJobFilterFlags& f);

// Every filter in words: "dead jobs of queue payments whose reason is
// non_retryable, tagged env=prod". `no_queue`: how to say "any queue".
std::string Describe(const DeadJobFilterFlags& f, const std::string& older_than,
                     const std::string& no_queue);

// After a selection matched nothing: says so ("no " + `what`), with the
// closest classes and the command that acts on the first.
void PrintNoMatch(CliContext& ctx, const DeadJobFilterFlags& f, const std::string& what);

// --json: the closest classes of a miss, as the API's closest_classes.
void AddClosestJson(CliContext& ctx, const DeadJobFilterFlags& f, boost::json::object& out);

}  // namespace redrive::cli
