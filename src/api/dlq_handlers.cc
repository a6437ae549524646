// The dead-letter queue: list, redrive (retry), purge.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/dlq_selector.h"
#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "core/error_fingerprint.h"
#include "core/time_format.h"
#include "wire/job_json.h"

namespace redrive::api {
namespace {

constexpr int kMaxDlqRetryLimit = 1000;
constexpr int kMaxPurgeLimit = 10000;
// A throttled redrive of the largest batch (1000 jobs) at the slowest rate
// ends within 10^7 s (about 116 days): far from the end of the time format.
constexpr double kMinRatePerSecond = 1e-4, kMaxRatePerSecond = 1e6;
constexpr size_t kMaxErrorPrefixBytes = 2048;
constexpr int kDefaultSummaryLimit = 20;

Result<std::optional<std::string>> QueryErrorPrefix(const QueryParams& q) {
  std::optional<std::string> prefix = QueryString(q, "error_prefix");
  if (prefix && prefix->size() > kMaxErrorPrefixBytes) {
    return Status::Validation("error_prefix", "error_prefix must be at most " +
                                                  std::to_string(kMaxErrorPrefixBytes) + " bytes");
  }
  return prefix;
}

Result<std::optional<std::string>> DecodeErrorPrefix(const wire::FieldReader& r) {
  return r.String("error_prefix", 1, kMaxErrorPrefixBytes);
}

// The filter GET /jobs/dlq and GET /jobs/dlq/summary share.
Result<engine::DeadLetterFilter> DecodeDeadLetterFilter(const QueryParams& q) {
  engine::DeadLetterFilter f;
  REDRIVE_ASSIGN_OR_RETURN(f.queue_name, QueryQueueName(q));
  f.tag = QueryString(q, "tag");
  REDRIVE_ASSIGN_OR_RETURN(f.dead_reason, QueryDeadReason(q));
  REDRIVE_ASSIGN_OR_RETURN(f.error_prefix, QueryErrorPrefix(q));
  REDRIVE_ASSIGN_OR_RETURN(f.fingerprint, CheckFingerprint(QueryString(q, "fingerprint")));
  return f;
}

Result<engine::ListDeadLettersParams> DecodeListDlq(const QueryParams& q) {
  engine::ListDeadLettersParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.filter, DecodeDeadLetterFilter(q));
  REDRIVE_ASSIGN_OR_RETURN(p.limit, QueryLimit(q, "limit", 100, 50));
  REDRIVE_RETURN_IF_ERROR(QueryFixedOrder(q, "deadlettered_at"));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> offset, QueryInt(q, "offset", 0, INT32_MAX));
  p.offset = static_cast<int>(offset.value_or(0));
  return p;
}

// No offset: the summary is the largest groups, not a page.
Result<engine::SummarizeDeadLettersParams> DecodeDlqSummary(const QueryParams& q) {
  engine::SummarizeDeadLettersParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.filter, DecodeDeadLetterFilter(q));
  REDRIVE_ASSIGN_OR_RETURN(p.limit, QueryLimit(q, "limit", 100, kDefaultSummaryLimit));
  return p;
}

}  // namespace

// dlq_selector.h: the selector's body fields, shared with POST /operations.
Result<std::vector<std::string>> DecodeJobIds(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::array* items, r.Array("job_ids"));
  std::vector<std::string> ids;
  if (items == nullptr) return ids;
  if (items->size() > static_cast<size_t>(kMaxDlqRetryLimit)) {
    return Status::Validation(r.Path("job_ids"),
                              "at most " + std::to_string(kMaxDlqRetryLimit) + " ids");
  }
  for (size_t i = 0; i < items->size(); ++i) {
    if (!(*items)[i].is_string()) {
      std::string path = r.Path("job_ids") + "[" + std::to_string(i) + "]";
      return Status::Validation(path, path + " must be a string");
    }
    ids.emplace_back((*items)[i].get_string());
  }
  return ids;
}

namespace {

Result<std::optional<DeadReason>> DecodeDeadReason(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> text, r.String("dead_reason", 0, 64));
  if (!text) return std::optional<DeadReason>();
  std::optional<DeadReason> reason = ParseDeadReason(*text);
  if (!reason) {
    return Status::Validation(r.Path("dead_reason"),
                              r.Path("dead_reason") + " must be one of " + DeadReasonNames());
  }
  return reason;
}

}  // namespace

// The filter the bodies of DLQ retry and purge (and the selector of POST
// /operations) share (their query-string twin is DecodeDeadLetterFilter).
Result<engine::DeadLetterFilter> DecodeBodyDeadLetterFilter(const wire::FieldReader& r) {
  engine::DeadLetterFilter f;
  REDRIVE_ASSIGN_OR_RETURN(f.queue_name, OptionalQueueName(r));
  REDRIVE_ASSIGN_OR_RETURN(f.dead_reason, DecodeDeadReason(r));
  REDRIVE_ASSIGN_OR_RETURN(f.tag, r.String("tag", 1, 1024));
  REDRIVE_ASSIGN_OR_RETURN(f.error_prefix, DecodeErrorPrefix(r));
  REDRIVE_ASSIGN_OR_RETURN(f.fingerprint, DecodeFingerprint(r));
  return f;
}

namespace {

Result<engine::DlqRetryParams> DecodeDlqRetry(const boost::json::object& body) {
  wire::FieldReader r(body);
  engine::DlqRetryParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.job_ids, DecodeJobIds(r));
  REDRIVE_ASSIGN_OR_RETURN(p.filter, DecodeBodyDeadLetterFilter(r));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> limit, r.Int("limit", 1, kMaxDlqRetryLimit));
  p.limit = static_cast<int>(limit.value_or(100));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<bool> dry_run, r.Bool("dry_run"));
  p.dry_run = dry_run.value_or(false);
  REDRIVE_ASSIGN_OR_RETURN(p.rate_per_second,
                           r.Number("rate_per_second", kMinRatePerSecond, kMaxRatePerSecond));
  REDRIVE_ASSIGN_OR_RETURN(p.budget, Budget(r));
  REDRIVE_ASSIGN_OR_RETURN(p.target_queue, TargetQueue(r));
  return p;
}

Result<engine::DlqPurgeParams> DecodeDlqPurge(const boost::json::object& body) {
  wire::FieldReader r(body);
  // Purging is irreversible: demand the literal true, not just a truthy value.
  // A dry run carries it too: one rule for every purge request, and the body
  // of the dry run is then exactly the body of the purge it previews.
  const boost::json::value* confirm = r.Find("confirm");
  if (confirm == nullptr || !confirm->is_bool() || !confirm->get_bool()) {
    return Status(ErrorCode::kBadRequest, "purging the DLQ requires \"confirm\": true", "confirm");
  }
  engine::DlqPurgeParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.filter, DecodeBodyDeadLetterFilter(r));
  REDRIVE_ASSIGN_OR_RETURN(p.older_than, r.Time("older_than"));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> limit, r.Int("limit", 1, kMaxPurgeLimit));
  p.limit = static_cast<int>(limit.value_or(kMaxPurgeLimit));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<bool> dry_run, r.Bool("dry_run"));
  p.dry_run = dry_run.value_or(false);
  return p;
}

// Only when the selection matched nothing and named a filter: the DLQ's
// classes most like what was asked, in GET /jobs/dlq/summary's shape.
void PutClosestClasses(boost::json::object& out, const std::vector<DeadLetterGroup>& groups) {
  if (groups.empty()) return;
  boost::json::array classes;
  for (const DeadLetterGroup& g : groups) classes.push_back(wire::DeadLetterGroupToJson(g));
  out["closest_classes"] = std::move(classes);
}

// Every answer says how many dead jobs match (matched_count, whatever the
// limit) and how many this call took (selected_count, at most the limit).
Response EncodeDlqRetry(const engine::DlqRetryResult& r) {
  boost::json::object out{{"matched_count", r.matched_count}, {"selected_count", r.selected_count}};
  if (r.dry_run) {
    out["dry_run"] = true;
  } else {
    boost::json::array ids;
    for (const std::string& id : r.retried_ids) ids.push_back(boost::json::string(id));
    out["retried_count"] = r.retried_ids.size();
    out["retried_jobs"] = std::move(ids);
    if (r.first_due_at) out["first_due_at"] = FormatTime(*r.first_due_at);
    if (r.last_due_at) out["last_due_at"] = FormatTime(*r.last_due_at);
  }
  PutClosestClasses(out, r.closest_classes);
  return JsonResponse(200, out);
}

Response EncodeDlqPurge(const engine::DlqPurgeResult& r) {
  boost::json::object out;
  if (r.dry_run) {
    out = {{"matched_count", r.count}, {"dry_run", true}};
  } else {
    out = {{"purged_count", r.count}};
  }
  PutClosestClasses(out, r.closest_classes);
  return JsonResponse(200, out);
}

}  // namespace

void HandleListDlq(Call& call) {
  Result<engine::ListDeadLettersParams> p = DecodeListDlq(call.query);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.ListDeadLetters(std::move(*p),
                              Answer<std::vector<Job>>(call.respond, [](std::vector<Job>& jobs) {
                                boost::json::array out;
                                for (const Job& job : jobs) {
                                  out.push_back(wire::JobSummaryToJson(job));
                                }
                                return JsonResponse(200, out);
                              }));
}

void HandleDlqSummary(Call& call) {
  Result<engine::SummarizeDeadLettersParams> p = DecodeDlqSummary(call.query);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.SummarizeDeadLetters(
      std::move(*p),
      Answer<std::vector<DeadLetterGroup>>(call.respond, [](std::vector<DeadLetterGroup>& groups) {
        boost::json::array out;
        for (const DeadLetterGroup& g : groups) out.push_back(wire::DeadLetterGroupToJson(g));
        return JsonResponse(200, out);
      }));
}

void HandleDlqRetry(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::DlqRetryParams> p = DecodeDlqRetry(*body);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.DlqRetry(std::move(*p), Answer<engine::DlqRetryResult>(call.respond, EncodeDlqRetry));
}

void HandleDlqPurge(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::DlqPurgeParams> p = DecodeDlqPurge(*body);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.DlqPurge(std::move(*p), Answer<engine::DlqPurgeResult>(call.respond, EncodeDlqPurge));
}

}  // namespace redrive::api
