#include "redrive_api.h"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "wire/error_decode.h"

namespace redrive::bench {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

constexpr std::string_view kBase = "/api/v1";
constexpr milliseconds kRequestTimeout{30'000};
// Stats are polled every few milliseconds against a deadline: a stuck poll
// must not hold the phase much past it.
constexpr milliseconds kStatsTimeout{5'000};
constexpr std::string_view kFailError = "redrive-bench: planned failure";

// Numbers may come back as int64, uint64 or double depending on how the
// server stores and re-serializes payloads; the bench only needs integers.
int64_t ToInt64(const json::value* v, int64_t fallback = -1) {
  if (v == nullptr) return fallback;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return fallback;
}

std::string StringField(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

Status Malformed(std::string_view route, std::string_view why) {
  return Status::Unavailable(std::string(route) + ": unexpected response: " + std::string(why));
}

json::array AcksToJson(std::span<const Ack> acks) {
  json::array out;
  out.reserve(acks.size());
  for (const Ack& a : acks) {
    json::object o{{"id", a.id}, {"lease_id", a.lease_id}};
    if (a.failed) o["error"] = kFailError;
    out.emplace_back(std::move(o));
  }
  return out;
}

void TallyAckResults(const json::value* results, AckTally* acked) {
  if (results == nullptr || !results->is_array()) return;
  for (const json::value& r : results->get_array()) {
    const json::object* o = r.if_object();
    const json::value* success = o != nullptr ? o->if_contains("success") : nullptr;
    if (success != nullptr && success->is_bool() && success->get_bool()) {
      ++acked->ok;
      continue;
    }
    ++acked->refused;
    if (acked->first_refusal.empty()) acked->first_refusal = json::serialize(r);
  }
}

}  // namespace

Result<json::value> RedriveApi::Call(std::string_view method, const std::string& target,
                                     const json::object* body, milliseconds timeout) {
  std::string text = body != nullptr ? json::serialize(*body) : std::string();
  Result<HttpResponse> resp = http_->Request(method, target, text, timeout);
  std::string route = std::string(method) + " " + target;
  if (!resp.ok()) return Status::Unavailable(route + ": " + resp.status().message());
  if (resp->status < 200 || resp->status > 299) {
    // Callers tell "the server said no" from "no answer" (kUnavailable) by code.
    return Status(
        wire::ErrorCodeForHttpStatus(resp->status),
        route + ": HTTP " + std::to_string(resp->status) + " " + resp->body.substr(0, 300));
  }
  if (resp->body.empty()) return json::value();
  boost::system::error_code ec;
  json::value v = json::parse(resp->body, ec);
  if (ec) return Malformed(route, "invalid JSON: " + ec.message());
  return v;
}

Status RedriveApi::ConfigureQueue(std::string_view queue, int max_retries) {
  json::object body{{"max_retries", max_retries},
                    {"backoff", json::object{{"base_ms", 0}, {"max_ms", 0}, {"jitter_ms", 0}}}};
  std::string target = std::string(kBase) + "/queues/" + std::string(queue) + "/config";
  return Call("PUT", target, &body, kRequestTimeout).status();
}

Status RedriveApi::EnqueueBulk(std::string_view queue, std::span<const json::object> payloads,
                               int max_retries) {
  json::array jobs;
  jobs.reserve(payloads.size());
  for (const json::object& p : payloads) jobs.emplace_back(json::object{{"payload", p}});
  json::object body{
      {"queue_name", queue}, {"jobs", std::move(jobs)}, {"default_max_retries", max_retries}};
  Result<json::value> r = Call("POST", std::string(kBase) + "/jobs/bulk", &body, kRequestTimeout);
  if (!r.ok()) return r.status();
  const json::object* o = r->if_object();
  if (o == nullptr) return Malformed("POST /jobs/bulk", "not an object");
  const int64_t succeeded = ToInt64(o->if_contains("success_count"));
  if (succeeded != static_cast<int64_t>(payloads.size())) {
    const json::value* failed = o->if_contains("failed");
    return Status::Unavailable(
        "POST /jobs/bulk: " + std::to_string(succeeded) + " of " + std::to_string(payloads.size()) +
        " accepted; failed: " + (failed ? json::serialize(*failed).substr(0, 300) : "?"));
  }
  return Status::Ok();
}

Status RedriveApi::Enqueue(std::string_view queue, const json::object& payload, int max_retries) {
  json::object body{{"queue_name", queue}, {"payload", payload}, {"max_retries", max_retries}};
  return Call("POST", std::string(kBase) + "/jobs", &body, kRequestTimeout).status();
}

Status RedriveApi::Claim(const ClaimRequest& req, std::vector<ClaimedJob>* jobs, AckTally* acked) {
  json::object body{{"queue_name", req.queue},
                    {"worker_id", req.worker_id},
                    {"limit", req.limit},
                    {"lease_duration_secs", req.lease_secs},
                    {"wait_ms", req.wait.count()}};
  if (!req.acks.empty()) body["acks"] = AcksToJson(req.acks);
  // The server may hold a long-poll for wait_ms before answering.
  Result<json::value> r =
      Call("POST", std::string(kBase) + "/jobs/claim", &body, req.wait + kRequestTimeout);
  if (!r.ok()) return r.status();
  const json::object* o = r->if_object();
  const json::value* list = o != nullptr ? o->if_contains("jobs") : nullptr;
  if (list == nullptr || !list->is_array()) return Malformed("POST /jobs/claim", "no jobs array");
  for (const json::value& j : list->get_array()) {
    const json::object* jo = j.if_object();
    if (jo == nullptr) return Malformed("POST /jobs/claim", "job is not an object");
    ClaimedJob job{StringField(*jo, "id"), StringField(*jo, "lease_id")};
    if (const json::value* p = jo->if_contains("payload"); p != nullptr && p->is_object()) {
      job.index = ToInt64(p->get_object().if_contains("i"));
      job.sent_ns = ToInt64(p->get_object().if_contains("t"), 0);
    }
    jobs->push_back(std::move(job));
  }
  if (!req.acks.empty()) TallyAckResults(o->if_contains("results"), acked);
  return Status::Ok();
}

Status RedriveApi::Complete(const ClaimedJob& job, std::string_view worker_id) {
  json::object body{{"worker_id", worker_id}, {"lease_id", job.lease_id}};
  return Call("POST", std::string(kBase) + "/jobs/" + job.id + "/complete", &body, kRequestTimeout)
      .status();
}

Status RedriveApi::Fail(const ClaimedJob& job, std::string_view worker_id, std::string_view error) {
  json::object body{{"worker_id", worker_id}, {"lease_id", job.lease_id}, {"error", error}};
  return Call("POST", std::string(kBase) + "/jobs/" + job.id + "/fail", &body, kRequestTimeout)
      .status();
}

Status RedriveApi::AckBatch(std::string_view worker_id, std::span<const Ack> acks,
                            AckTally* acked) {
  json::object body{{"worker_id", worker_id}, {"acks", AcksToJson(acks)}};
  Result<json::value> r = Call("POST", std::string(kBase) + "/jobs/ack", &body, kRequestTimeout);
  if (!r.ok()) return r.status();
  const json::object* o = r->if_object();
  TallyAckResults(o != nullptr ? o->if_contains("results") : nullptr, acked);
  return Status::Ok();
}

Result<QueueCounts> RedriveApi::Stats(std::string_view queue) {
  Result<json::value> r =
      Call("GET", std::string(kBase) + "/jobs/stats?queue_name=" + std::string(queue), nullptr,
           kStatsTimeout);
  if (!r.ok()) return r.status();
  const json::object* o = r->if_object();
  if (o == nullptr) return Malformed("GET /jobs/stats", "not an object");
  // A missing count must not read as 0: "0 unfinished" ends a phase.
  bool complete = true;
  auto field = [o, &complete](std::string_view k) {
    int64_t v = ToInt64(o->if_contains(k));
    complete = complete && v >= 0;
    return v;
  };
  QueueCounts c;
  c.pending = field("pending");
  c.scheduled = field("scheduled");
  c.processing = field("processing");
  c.completed = field("completed");
  c.deadletter = field("deadletter");
  c.cancelled = field("cancelled");
  c.total = field("total");
  if (!complete) return Malformed("GET /jobs/stats", "missing or non-numeric counts");
  return c;
}

}  // namespace redrive::bench
