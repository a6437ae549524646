#include "core/webhook.h"

#include <gtest/gtest.h>

#include <iterator>

#include "core/utf8.h"
#include "core/webhook_event.h"

namespace redrive {
namespace {

using namespace std::chrono_literals;

const Instant kNow = InstantFromMicros(1'800'000'000'000'000);

Webhook Hook(std::vector<std::string> events, bool enabled = true) {
  Webhook w;
  w.id = "w1";
  w.events = std::move(events);
  w.enabled = enabled;
  return w;
}

TEST(WebhookEventsTest, TheContractsEventsQuarantineAndSpooledsWorkerEventsAreKnownAndNothingElse) {
  EXPECT_EQ(std::size(kWebhookEventNames), 16u);
  for (auto name :
       {"job.created", "job.started", "job.completed", "job.failed", "job.deadlettered",
        "job.retried", "job.cancelled", "job.quarantined", "queue.paused", "queue.resumed",
        "worker.registered", "worker.deregistered", "schedule.triggered", "workflow.completed",
        "workflow.failed", "dlq.autoredrive"}) {
    EXPECT_TRUE(IsWebhookEvent(name)) << name;
  }
  EXPECT_FALSE(IsWebhookEvent("job.*"));
  EXPECT_FALSE(IsWebhookEvent("webhook.test"));
  EXPECT_FALSE(IsWebhookEvent(""));
}

// The list error messages name (POST /outgoing-webhooks with an unknown event).
TEST(WebhookEventsTest, NamesListsEveryEventInOrder) {
  EXPECT_EQ(WebhookEventNames(),
            "job.created, job.started, job.completed, job.failed, job.deadlettered, "
            "job.retried, job.cancelled, job.quarantined, queue.paused, queue.resumed, "
            "worker.registered, worker.deregistered, schedule.triggered, workflow.completed, "
            "workflow.failed, dlq.autoredrive");
}

TEST(WebhookWantsTest, OnlySubscribedEventsOfEnabledWebhooks) {
  EXPECT_TRUE(WebhookWants(Hook({"job.failed", "job.created"}), "job.failed"));
  EXPECT_FALSE(WebhookWants(Hook({"job.failed"}), "job.completed"));
  EXPECT_FALSE(WebhookWants(Hook({"job.failed"}, false), "job.failed"));
}

TEST(DeliveryRetryDelayTest, FiveSecondsDoublingCappedAtOneHour) {
  DeliveryRetryPolicy p;
  const long long kWantSeconds[] = {5,    10,   20,   40,   80,   160,  320, 640,
                                    1280, 2560, 3600, 3600, 3600, 3600, 3600};
  for (int n = 1; n <= 15; ++n) {
    EXPECT_EQ(DeliveryRetryDelay(p, n), std::chrono::seconds(kWantSeconds[n - 1])) << n;
  }
  EXPECT_EQ(DeliveryRetryDelay(p, 0), 5s);
  EXPECT_EQ(DeliveryRetryDelay(p, 1000), 1h);  // no overflow
}

WebhookDelivery Pending(int attempts) {
  WebhookDelivery d;
  d.id = "d1";
  d.attempts = attempts;
  d.next_attempt_at = kNow;
  return d;
}

TEST(DecideAfterAttemptTest, SuccessDeliversAndResetsTheFailureCount) {
  Webhook w = Hook({"job.failed"});
  w.consecutive_failures = 7;
  AttemptResult ok{true, 204, std::nullopt, 12ms};
  AttemptDecision d = DecideAfterAttempt(Pending(2), w, ok, kNow, {});
  EXPECT_EQ(d.delivery.status, DeliveryStatus::kDelivered);
  EXPECT_EQ(d.delivery.attempts, 3);
  EXPECT_EQ(d.delivery.delivered_at, kNow);
  EXPECT_EQ(d.delivery.last_status_code, 204);
  EXPECT_EQ(d.delivery.duration_ms, 12);
  EXPECT_EQ(d.webhook.consecutive_failures, 0);
  EXPECT_EQ(d.webhook.last_delivery_at, kNow);
  EXPECT_FALSE(d.gave_up);
  EXPECT_FALSE(d.disabled_now);
}

TEST(DecideAfterAttemptTest, FailureRetriesAtTheExactBackoff) {
  AttemptResult fail{false, 500, "HTTP 500", 3ms};
  AttemptDecision d = DecideAfterAttempt(Pending(0), Hook({"job.failed"}), fail, kNow, {});
  EXPECT_EQ(d.delivery.status, DeliveryStatus::kPending);
  EXPECT_EQ(d.delivery.attempts, 1);
  EXPECT_EQ(d.delivery.next_attempt_at, kNow + 5s);
  EXPECT_EQ(d.delivery.last_error, "HTTP 500");
  EXPECT_EQ(d.webhook.consecutive_failures, 1);

  d = DecideAfterAttempt(d.delivery, d.webhook, fail, kNow + 5s, {});
  EXPECT_EQ(d.delivery.next_attempt_at, kNow + 5s + 10s);
  d = DecideAfterAttempt(d.delivery, d.webhook, fail, kNow + 15s, {});
  EXPECT_EQ(d.delivery.next_attempt_at, kNow + 15s + 20s);
  EXPECT_EQ(d.webhook.consecutive_failures, 3);
}

TEST(DecideAfterAttemptTest, GivesUpAfterMaxAttempts) {
  DeliveryRetryPolicy p;
  p.max_attempts = 3;
  AttemptResult fail{false, std::nullopt, "connection refused", 1ms};
  AttemptDecision d = DecideAfterAttempt(Pending(1), Hook({"job.failed"}), fail, kNow, p);
  EXPECT_FALSE(d.gave_up);
  d = DecideAfterAttempt(d.delivery, d.webhook, fail, kNow, p);
  EXPECT_TRUE(d.gave_up);
  EXPECT_EQ(d.delivery.status, DeliveryStatus::kFailed);
  EXPECT_EQ(d.delivery.attempts, 3);
  EXPECT_FALSE(d.delivery.last_status_code.has_value());
}

TEST(DecideAfterAttemptTest, TwentyStraightFailuresDisableTheWebhook) {
  Webhook w = Hook({"job.failed"});
  AttemptResult fail{false, 503, "HTTP 503", 1ms};
  for (int i = 1; i < kMaxConsecutiveFailures; ++i) {
    AttemptDecision d = DecideAfterAttempt(Pending(0), w, fail, kNow, {});
    ASSERT_FALSE(d.disabled_now) << i;
    w = d.webhook;
  }
  EXPECT_EQ(w.consecutive_failures, 19);
  EXPECT_TRUE(w.enabled);
  AttemptDecision d = DecideAfterAttempt(Pending(0), w, fail, kNow, {});
  EXPECT_TRUE(d.disabled_now);
  EXPECT_FALSE(d.webhook.enabled);
  EXPECT_EQ(d.webhook.consecutive_failures, 20);
  ASSERT_TRUE(d.webhook.disabled_reason);
  EXPECT_EQ(*d.webhook.disabled_reason, "20 consecutive failed deliveries; last: HTTP 503");
  // One success in between starts the count again.
  w.consecutive_failures = 19;
  w = DecideAfterAttempt(Pending(0), w, {true, 200, std::nullopt, 1ms}, kNow, {}).webhook;
  EXPECT_EQ(w.consecutive_failures, 0);
}

TEST(DecideAfterAttemptTest, TheCompletionWebhookNeverDisablesItself) {
  Webhook w = NewCompletionWebhook("whsec_x", kNow);
  EXPECT_TRUE(IsCompletionWebhook(w));
  EXPECT_TRUE(w.events.empty());
  EXPECT_TRUE(w.enabled);
  AttemptResult fail{false, 503, "HTTP 503", 1ms};
  for (int i = 0; i < 2 * kMaxConsecutiveFailures; ++i) {
    AttemptDecision d = DecideAfterAttempt(Pending(0), w, fail, kNow, {});
    ASSERT_FALSE(d.disabled_now) << i;
    EXPECT_EQ(d.delivery.attempts, 1);  // the delivery itself retries as any other
    w = d.webhook;
  }
  EXPECT_TRUE(w.enabled);
  EXPECT_EQ(w.consecutive_failures, 0);
  EXPECT_EQ(w.last_delivery_at, kNow);
  EXPECT_FALSE(IsCompletionWebhook(Hook({"job.failed"})));
}

TEST(CompletionEventsTest, TheJobsEndsOnly) {
  EXPECT_TRUE(IsCompletionEvent("job.completed"));
  EXPECT_TRUE(IsCompletionEvent("job.deadlettered"));
  EXPECT_TRUE(IsCompletionEvent("job.cancelled"));
  EXPECT_FALSE(IsCompletionEvent("job.failed"));  // a retry follows
  EXPECT_FALSE(IsCompletionEvent("job.quarantined"));
  EXPECT_FALSE(IsCompletionEvent("job.created"));
}

TEST(WebhookSecretTest, WhsecAndSixtyFourHexDigits) {
  unsigned char bytes[32];
  for (int i = 0; i < 32; ++i) bytes[i] = static_cast<unsigned char>(i * 8 + 1);
  std::string s = FormatWebhookSecret(bytes);
  EXPECT_EQ(s.size(), 6u + 64u);
  EXPECT_EQ(s.substr(0, 10), "whsec_0109");
}

Job SampleJob() {
  Job j;
  j.id = "0190aaaa-0000-7000-8000-000000000001";
  j.queue_name = "emails";
  j.status = JobStatus::kDeadletter;
  j.payload = R"({"secret":"do not send"})";
  j.retry_count = 3;
  j.attempts = 4;
  j.last_error = "smtp \"down\"";
  j.dead_reason = DeadReason::kMaxRetriesExceeded;
  j.tags = {{"tenant", "acme"}};
  j.created_at = j.updated_at = j.scheduled_at = kNow;
  return j;
}

TEST(WebhookEventTest, EnvelopeCarriesAJobSummaryWithoutThePayload) {
  WebhookEvent e = JobWebhookEvent("job.failed", SampleJob(), {.will_retry = false});
  std::string body = WebhookEnvelope("ev-1", e, kNow);
  EXPECT_EQ(body,
            R"({"id":"ev-1","event":"job.failed","created_at":"2027-01-15T08:00:00.000Z",)"
            R"("data":{"job_id":"0190aaaa-0000-7000-8000-000000000001","queue_name":"emails",)"
            R"("status":"deadletter","priority":0,"retry_count":3,"max_retries":3,"attempts":4,)"
            R"("last_error":"smtp \"down\"","dead_reason":"max_retries_exceeded",)"
            R"("tags":{"tenant":"acme"},"created_at":"2027-01-15T08:00:00.000Z",)"
            R"("updated_at":"2027-01-15T08:00:00.000Z","scheduled_at":"2027-01-15T08:00:00.000Z",)"
            R"("will_retry":false,"error":"smtp \"down\""}})");
  EXPECT_EQ(body.find("do not send"), std::string::npos);
}

// Spooled's job.failed data: job_id, queue_name, status and error.
TEST(WebhookEventTest, FailedEventsCarrySpooledsErrorOthersDoNot) {
  for (const char* name : {"job.failed", "job.deadlettered"}) {
    const std::string data = JobWebhookEvent(name, SampleJob()).data_json;
    EXPECT_NE(data.find(R"("error":"smtp \"down\"")"), std::string::npos) << name << data;
  }
  Job fresh = SampleJob();
  fresh.last_error.reset();
  EXPECT_NE(JobWebhookEvent("job.failed", fresh).data_json.find(R"("error":null)"),
            std::string::npos);
  EXPECT_EQ(JobWebhookEvent("job.completed", SampleJob()).data_json.find(R"("error")"),
            std::string::npos);
}

TEST(WebhookEventTest, WorkerEventsCarryTheWorker) {
  WorkerInfo w;
  w.id = "w-1";
  w.queue_name = "emails";
  w.hostname = "box";
  w.version = "1.2";
  WebhookEvent e = WorkerWebhookEvent("worker.registered", w);
  EXPECT_EQ(e.data_json,
            R"({"worker_id":"w-1","queue_name":"emails","hostname":"box","worker_type":null,)"
            R"("version":"1.2","status":"healthy"})");
  EXPECT_EQ(SlackMessage(e), R"({"text":"Worker w-1 on box registered for queue emails"})");
  w.status = "offline";
  EXPECT_EQ(SlackMessage(WorkerWebhookEvent("worker.deregistered", w)),
            R"({"text":"Worker w-1 on box deregistered from queue emails"})");
}

TEST(WebhookEventTest, SlackFormatIsOneTextLine) {
  WebhookEvent e = JobWebhookEvent("job.deadlettered", SampleJob());
  EXPECT_EQ(WebhookBody(WebhookFormat::kSlack, "ev", e, kNow),
            R"({"text":"Job 0190aaaa-0000-7000-8000-000000000001 in queue emails dead-lettered )"
            R"((max_retries_exceeded): smtp \"down\""})");
  WebhookEvent q = QueueWebhookEvent("queue.paused", "emails", "maintenance");
  EXPECT_EQ(q.data_json, R"({"queue_name":"emails","reason":"maintenance"})");
  EXPECT_EQ(SlackMessage(q), R"({"text":"Queue emails paused: maintenance"})");
}

TEST(WebhookEventTest, DiscordFormatIsTheSummaryWithMentionsOff) {
  WebhookEvent q = QueueWebhookEvent("queue.paused", "emails", "@everyone maintenance");
  EXPECT_EQ(WebhookBody(WebhookFormat::kDiscord, "ev", q, kNow),
            R"({"content":"Queue emails paused: @everyone maintenance","username":"Redrive",)"
            R"("allowed_mentions":{"parse":[]}})");
}

TEST(WebhookEventTest, DiscordContentIsCutToTwoThousandBytesOnACharacterBoundary) {
  // "x" and 1,000 two-byte characters: 2,001 bytes; a cut at 2,000 would
  // split the last character, so 1,999 bytes remain.
  WebhookEvent e{"queue.paused", "{}", "x"};
  for (int i = 0; i < 1000; ++i) e.summary += "\xc3\xa9";  // é
  const std::string body = DiscordMessage(e);
  const std::string prefix = R"({"content":")";
  const size_t end = body.find('"', prefix.size());
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(end - prefix.size(), 1999u);  // "x" + 999 whole characters
  EXPECT_EQ(ValidUtf8(body), body);
}

TEST(WebhookEventTest, TeamsFormatIsOneAdaptiveCard) {
  WebhookEvent q = QueueWebhookEvent("queue.paused", "emails", "maintenance");
  EXPECT_EQ(WebhookBody(WebhookFormat::kTeams, "ev", q, kNow),
            R"({"type":"message","attachments":[{"contentType":)"
            R"("application/vnd.microsoft.card.adaptive","content":{"$schema":)"
            R"("http://adaptivecards.io/schemas/adaptive-card.json","type":"AdaptiveCard",)"
            R"("version":"1.4","body":[{"type":"TextBlock","text":"Redrive: queue.paused",)"
            R"("weight":"Bolder"},{"type":"TextBlock","text":"Queue emails paused: )"
            R"(maintenance","wrap":true}]}}]})");
}

TEST(WebhookFormatTest, EveryFormatParsesBackFromItsName) {
  for (WebhookFormat f : {WebhookFormat::kJson, WebhookFormat::kSlack, WebhookFormat::kDiscord,
                          WebhookFormat::kTeams}) {
    EXPECT_EQ(ParseWebhookFormat(WebhookFormatName(f)), f) << WebhookFormatName(f);
  }
  EXPECT_EQ(ParseWebhookFormat("Slack"), std::nullopt);
  EXPECT_EQ(ParseWebhookFormat("msteams"), std::nullopt);
  EXPECT_EQ(WebhookFormatNames(), R"("json", "slack", "discord", "teams")");
}

}  // namespace
}  // namespace redrive
