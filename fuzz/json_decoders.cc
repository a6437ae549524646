// fuzz_json_decoders: request bodies (and the server's answers, as the SDK
// reads them) into every JSON decoder. The first byte picks the decoder; the
// rest is the JSON text. Decoders the api exposes are called directly, with
// the invariants they promise; those private to a route's handler (claim,
// bulk, queue config, DLQ, workers, ...) are reached through Api::Handle on
// their route (api_harness.h), where a decoding bug shows as a crash, UB, a
// 5xx or a malformed answer.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "api/job_decoding.h"
#include "api/request_decoding.h"
#include "api/webhook_decoding.h"
#include "api_harness.h"
#include "core/ids.h"
#include "core/new_job.h"
#include "core/queue.h"
#include "core/random.h"
#include "core/tags_json.h"
#include "core/utf8.h"
#include "wire/error_decode.h"
#include "wire/field_reader.h"
#include "wire/job_decode.h"
#include "wire/job_json.h"
#include "wire/queue_decode.h"
#include "wire/queue_json.h"
#include "wire/worker_json.h"

namespace redrive::fuzz {
namespace {

namespace json = boost::json;

[[noreturn]] void Fail(std::string_view what, std::string_view input) {
  std::fprintf(stderr, "fuzz: %.*s\ninput: %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(input.size()), input.data());
  std::abort();
}

const ServerLimits kLimits;

// The body as the routes read it (request_decoding.h's rules), or nullopt.
std::optional<json::object> Body(std::string_view text) {
  api::Request request;
  request.method = "POST";
  request.headers["content-type"] = "application/json";
  request.body = std::string(text);
  Result<json::object> body = api::DecodeJsonBody(request, kLimits);
  if (!body.ok()) return std::nullopt;
  return std::move(body).value();
}

Instant FloorMillis(Instant t) { return std::chrono::floor<std::chrono::milliseconds>(t); }
std::optional<Instant> FloorMillis(const std::optional<Instant>& t) {
  if (!t) return t;
  return FloorMillis(*t);
}

// What the wire can carry of a job: its times in milliseconds.
Job OnTheWire(Job job) {
  for (Instant* t : {&job.created_at, &job.updated_at, &job.scheduled_at}) *t = FloorMillis(*t);
  for (std::optional<Instant>* t : {&job.started_at, &job.completed_at, &job.expires_at,
                                    &job.deadlettered_at, &job.lease_expires_at}) {
    *t = FloorMillis(*t);
  }
  return job;
}

// POST /jobs: a job the API accepts is created, encoded for the client and
// decoded by the SDK into the same job.
void Enqueue(std::string_view text) {
  std::optional<json::object> body = Body(text);
  if (!body) return;
  Result<engine::EnqueueParams> params = api::DecodeEnqueue(*body, kLimits, {});
  if (!params.ok()) return;
  QueueConfig queue;
  queue.queue_name = params->queue_name;
  FixedRandom random(7);
  UuidV7Sequence ids;
  const Instant now = InstantFromMicros(1'800'000'000'123'456);
  const Job job = MakeNewJob(*params, queue, now, random, ids).job;
  Result<Job> decoded = wire::JobFromJson(wire::JobToJson(job));
  if (!decoded.ok()) Fail("JobFromJson refused JobToJson's job", text);
  if (!(*decoded == OnTheWire(job))) {
    Fail(
        "a job does not survive JobToJson → JobFromJson: " + json::serialize(wire::JobToJson(job)) +
            " became " + json::serialize(wire::JobToJson(*decoded)),
        text);
  }
}

// The "acks" of POST /jobs/ack and claim.
void Acks(std::string_view text) {
  std::optional<json::object> body = Body(text);
  if (!body) return;
  Result<std::vector<engine::Ack>> acks = api::DecodeAcks(wire::FieldReader(*body), kLimits);
  if (!acks.ok()) return;
  if (acks->size() > kMaxAcks) Fail("more than kMaxAcks acks", text);
  for (const engine::Ack& ack : *acks) {
    if (ack.job_id.empty() || ack.lease_id.empty()) Fail("an ack without id or lease", text);
    if (ack.result_json && ack.error) Fail("an ack that both completes and fails", text);
    if (ack.retry_after &&
        (ack.retry_after->count() < 0 || ack.retry_after->count() > 86'400'000)) {
      Fail("retry_after out of range", text);
    }
  }
}

// POST and PUT /outgoing-webhooks: an accepted URL passes the URL rules.
void Webhook(std::string_view text, bool patch, bool allow_private) {
  std::optional<json::object> body = Body(text);
  if (!body) return;
  const api::WebhookUrlRules rules{allow_private};
  std::optional<std::string> url;
  if (patch) {
    Result<engine::WebhookPatch> p = api::DecodeWebhookPatch(*body, rules);
    if (!p.ok()) return;
    if (p->events && p->events->empty()) Fail("a patch with no events", text);
    url = p->url;
  } else {
    Result<engine::CreateWebhookParams> p = api::DecodeCreateWebhook(*body, rules);
    if (!p.ok()) return;
    if (p->events.empty() || p->name.empty()) Fail("a webhook with no events or name", text);
    url = p->url;
  }
  if (url && !api::CheckWebhookUrl(*url, rules).ok()) Fail("an accepted URL fails its check", text);
}

// The stores' tags text (core/tags_json.h, a parser of its own) against
// Boost.JSON: the same text is a flat object of strings for both or neither,
// with the same tags; what it encodes decodes back. Only UTF-8 text is
// compared: DecodeTagsJson reads what a store wrote from a validated request
// and does not check the encoding again (Boost.JSON refuses ill-formed UTF-8).
void TagsText(std::string_view text) {
  std::optional<Tags> tags = DecodeTagsJson(text);
  if (ValidUtf8(text) != text) return;
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  std::optional<Tags> expected;
  bool duplicate = false;
  if (!ec && value.is_object()) {
    expected.emplace();
    for (const auto& [key, v] : value.get_object()) {
      if (!v.is_string()) {
        expected.reset();
        break;
      }
      duplicate |= !expected->emplace(std::string(key), std::string(v.get_string())).second;
    }
  }
  if (!duplicate && tags.has_value() != expected.has_value()) {
    Fail(tags ? "DecodeTagsJson accepts what Boost.JSON refuses"
              : "DecodeTagsJson refuses a flat object of strings",
         text);
  }
  if (tags && expected && !duplicate && *tags != *expected) {
    Fail("DecodeTagsJson and Boost.JSON read different tags", text);
  }
  if (tags) {
    std::optional<Tags> again = DecodeTagsJson(EncodeTagsJson(*tags));
    if (!again || *again != *tags) Fail("EncodeTagsJson does not decode back", text);
  }
}

// The SDK's decoders of the server's answers: lenient, never crashing, and
// decoding what they encode to a fixed point.
void SdkDecoders(std::string_view text) {
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec) return;
  if (Result<Job> job = wire::JobFromJson(value); job.ok()) {
    json::object encoded = wire::JobToJson(*job);
    Result<Job> again = wire::JobFromJson(encoded);
    if (!again.ok() || json::serialize(wire::JobToJson(*again)) != json::serialize(encoded)) {
      Fail("JobFromJson ∘ JobToJson is not a fixed point", text);
    }
  }
  if (Result<QueueConfig> queue = wire::QueueConfigFromJson(value); queue.ok()) {
    json::object encoded = wire::QueueConfigToJson(*queue);
    Result<QueueConfig> again = wire::QueueConfigFromJson(encoded);
    if (!again.ok() ||
        json::serialize(wire::QueueConfigToJson(*again)) != json::serialize(encoded)) {
      Fail("QueueConfigFromJson ∘ QueueConfigToJson is not a fixed point", text);
    }
  }
  (void)wire::HistoryEntryFromJson(value);
  (void)wire::DeadLetterGroupFromJson(value);
  (void)wire::WorkerFromJson(value);
  for (int status : {400, 404, 409, 413, 429, 500, 503}) {
    if (wire::ErrorFromJson(value, status).ok()) Fail("ErrorFromJson gave OK", text);
  }
  if (value.is_object()) {
    (void)wire::StatusCountsFromJson(value.get_object());
    (void)wire::BackoffFromJson(value.get_object());
  }
}

struct Route {
  const char* method;
  const char* target;
};

// The routes whose bodies are decoded inside their handler. The ids are
// made up: decoding comes before the lookup (which then answers 404).
constexpr Route kRoutes[] = {
    {"POST", "/api/v1/jobs"},
    {"POST", "/api/v1/jobs/bulk"},
    {"POST", "/api/v1/jobs/claim"},
    {"POST", "/api/v1/jobs/ack"},
    {"POST", "/api/v1/jobs/0190f5c8-0000-7000-8000-000000000000/heartbeat"},
    {"POST", "/api/v1/jobs/0190f5c8-0000-7000-8000-000000000000/complete"},
    {"POST", "/api/v1/jobs/0190f5c8-0000-7000-8000-000000000000/fail"},
    {"PUT", "/api/v1/jobs/0190f5c8-0000-7000-8000-000000000000/priority"},
    {"PUT", "/api/v1/jobs/0190f5c8-0000-7000-8000-000000000000/payload"},
    {"PUT", "/api/v1/queues/fuzz/config"},
    {"POST", "/api/v1/queues/fuzz/pause"},
    {"POST", "/api/v1/jobs/dlq/retry"},
    {"POST", "/api/v1/jobs/dlq/purge"},
    {"POST", "/api/v1/workers/register"},
    {"POST", "/api/v1/workers/fuzz-worker/heartbeat"},
    {"POST", "/api/v1/outgoing-webhooks"},
    {"PUT", "/api/v1/outgoing-webhooks/0190f5c8-0000-7000-8000-000000000000"},
    {"POST", "/api/v1/jobs/0190f5c8-0000-7000-8000-000000000000/snooze"},
    {"POST", "/api/v1/jobs/0190f5c8-0000-7000-8000-000000000000/release"},
    {"PUT", "/api/v1/schedules/0190f5c8-0000-7000-8000-000000000000"},
    // Not POST /schedules or /api-keys: created schedules would fire jobs
    // into the harness's store for the rest of the run, and the first
    // stored key would end the no-key mode every other input relies on.
    {"PUT", "/api/v1/api-keys/0190f5c8-0000-7000-8000-000000000000"},
    {"POST", "/api/v1/auth/login"},
    {"POST", "/api/v1/auth/refresh"},
    {"POST", "/api/v1/auth/validate"},
    {"POST", "/api/v1/auth/logout"},
};
constexpr size_t kDirectDecoders = 7;

void ThroughRoute(const Route& route, std::string_view text) {
  api::Request request;
  request.method = route.method;
  request.target = route.target;
  request.headers["host"] = "127.0.0.1";
  request.headers["content-type"] = "application/json";
  request.body = std::string(text);
  ApiHarness::Get().Send(std::move(request));
}

}  // namespace
}  // namespace redrive::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace redrive::fuzz;
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t choice = data[0] % (kDirectDecoders + std::size(kRoutes));
  switch (choice) {
    case 0:
      Enqueue(text);
      break;
    case 1:
      Acks(text);
      break;
    case 2:
      Webhook(text, false, false);
      break;
    case 3:
      Webhook(text, true, true);
      break;
    case 4:
      TagsText(text);
      break;
    case 5:
      SdkDecoders(text);
      break;
    case 6:
      Webhook(text, false, true);
      break;
    default:
      ThroughRoute(kRoutes[choice - kDirectDecoders], text);
  }
  return 0;
}
