// How jobs look on the terminal, shared by `jobs` and `dlq`: list tables,
// the detail view of one job and its history. With --json the commands print
// the server's shapes instead, through the same wire functions the server
// uses (so the JSON is what the API returned).
#pragma once

#include <ostream>
#include <vector>

#include "core/clock.h"
#include "core/job.h"

namespace redrive::cli {

// ID, QUEUE, STATUS, PRI, TRIES (retry_count/max_retries), TAGS, CREATED.
void PrintJobTable(std::ostream& out, const std::vector<Job>& jobs, Instant now);
// ID, QUEUE, REASON, TRIES, DIED, ERROR: the DLQ's view.
void PrintDeadJobTable(std::ostream& out, const std::vector<Job>& jobs, Instant now);
// Every field of one job, times both absolute and relative.
// `dlq summary`'s error classes: COUNT, QUEUE, REASON, FINGERPRINT, OLDEST,
// NEWEST, ERROR: the class's normalized message, then "e.g." one of its
// errors, last and wrapped, never cut (what it shows is what --error-prefix
// takes).
void PrintDeadLetterGroupTable(std::ostream& out, const std::vector<DeadLetterGroup>& groups,
                               Instant now);
void PrintJobDetail(std::ostream& out, const Job& job, Instant now);
// TIME, EVENT, WORKER, DETAILS, oldest first.
void PrintHistory(std::ostream& out, const std::vector<HistoryEntry>& history, Instant now);

// JSON arrays of JobSummary / history entries, as the API returns them.
void PrintJobSummariesJson(const std::vector<Job>& jobs);
void PrintDeadLetterGroupsJson(const std::vector<DeadLetterGroup>& groups);
void PrintHistoryJson(const std::vector<HistoryEntry>& history);

}  // namespace redrive::cli
