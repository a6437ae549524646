// Auto-redrive with the manual clock: canaries that complete open wider
// waves at the policy's rate until every eligible job is back; canaries
// that die again with the same class stop it, double its cool-down and say
// why (audit log, webhook dlq.autoredrive); a job at the revival ceiling is
// never revived again; a disabled policy does nothing; two engines on one
// SQLite file run it once.
#include <algorithm>
#include <set>

#include "core/error_fingerprint.h"
#include "engine/engine_test_util.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kQueue[] = "payments";
constexpr char kError[] = "upstream 504 from gateway-7";
constexpr char kAutoredriveSource[] = R"("source":"autoredrive")";

class EngineAutoredriveTest : public EngineTest {
 protected:
  // `n` dead jobs of kQueue that failed with kError (no retries): their ids.
  std::vector<std::string> EnqueueDeadMany(int n) {
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) {
      EnqueueParams p;
      p.queue_name = kQueue;
      p.payload_json = R"({"i":)" + std::to_string(i) + "}";
      p.max_retries = 0;
      ids.push_back(Enqueue(kQueue, p));
    }
    AckAll(kError);
    return ids;
  }
  // Claims every pending job of kQueue and completes it (no error) or fails
  // it with `error`: how many.
  int AckAll(std::optional<std::string> error) {
    std::vector<Job> claimed = Claim(kQueue, 1000);
    std::vector<Ack> acks;
    for (const Job& j : claimed) acks.push_back(Ack{j.id, *j.lease_id, std::nullopt, error});
    if (acks.empty()) return 0;
    auto r = Call<std::vector<AckItemResult>>(&Engine::AckBatch, std::string("w1"), std::move(acks),
                                              QueueScope{});
    EXPECT_TRUE(r.ok());
    return static_cast<int>(claimed.size());
  }
  static AutoredrivePolicy Policy() {
    AutoredrivePolicy p;
    p.queue_name = kQueue;
    p.enabled = true;
    p.fingerprint = ErrorFingerprint(kError);
    p.cooldown = seconds(60);
    p.max_cooldown = seconds(600);
    p.canary_size = 3;
    p.rate_per_second = 10;
    p.max_revivals_per_job = 3;
    p.updated_by = "oncall";
    return p;
  }
  PutAutoredriveResult Put(AutoredrivePolicy p) {
    auto r = Call<PutAutoredriveResult>(&Engine::PutAutoredrive, std::move(p));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : PutAutoredriveResult{};
  }
  AutoredriveView View() {
    auto r = Call<AutoredriveView>(&Engine::GetAutoredrive, std::string(kQueue));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : AutoredriveView{};
  }
  void Pass() { engine_->RunServicesOnce(); }
  void Advance(Micros d) {
    clock_.Advance(d);
    Pass();
  }
  long long Count(JobStatus st) {
    auto counts = Call<StatusCounts>(&Engine::Stats, std::optional<std::string>(kQueue));
    EXPECT_TRUE(counts.ok());
    return counts.ok() ? counts->of(st) : -1;
  }
  // How many times auto-redrive revived each job (its history entries).
  std::map<std::string, int> RevivalsByJob(const std::vector<std::string>& ids) {
    std::map<std::string, int> out;
    auto tx = store_->BeginRead();
    for (const std::string& id : ids) {
      auto h = (*tx)->GetHistory(id);
      EXPECT_TRUE(h.ok());
      for (const HistoryEntry& e : *h) {
        if (e.details_json.find(kAutoredriveSource) != std::string::npos) ++out[id];
      }
    }
    return out;
  }
  // The duty's audit entries, oldest first.
  std::vector<AuditEntry> Audit() {
    AuditFilter f;
    f.actor = kAutoredriveActor;
    f.limit = 100;
    auto r = Call<std::vector<AuditEntry>>(&Engine::ListAudit, f);
    EXPECT_TRUE(r.ok());
    std::vector<AuditEntry> out = r.ok() ? *r : std::vector<AuditEntry>{};
    std::reverse(out.begin(), out.end());
    return out;
  }
  static std::vector<std::string> Decisions(const std::vector<AuditEntry>& entries) {
    std::vector<std::string> out;
    for (const AuditEntry& e : entries) {
      const std::string& sel = e.selector.value_or("");
      const size_t at = sel.find(R"("decision":")");
      out.push_back(
          at == std::string::npos ? "" : sel.substr(at + 12, sel.find('"', at + 12) - at - 12));
    }
    return out;
  }
};

TEST_F(EngineAutoredriveTest, CanariesCompleteThenWavesWidenAtTheRateUntilAllAreBack) {
  const std::vector<std::string> ids = EnqueueDeadMany(40);
  PutAutoredriveResult put = Put(Policy());
  EXPECT_TRUE(put.created);
  EXPECT_EQ(put.view.state.phase, AutoredrivePhase::kCooling);
  EXPECT_EQ(put.view.eligible, 40);

  Pass();  // cooling: nothing yet
  EXPECT_EQ(Count(JobStatus::kDeadletter), 40);
  Advance(seconds(60));  // the cool-down is over: 3 canaries
  AutoredriveView v = View();
  EXPECT_EQ(v.state.phase, AutoredrivePhase::kCanary);
  EXPECT_EQ(v.state.batch_job_ids.size(), 3u);
  EXPECT_EQ(Count(JobStatus::kPending), 3);
  Pass();  // in flight: waits
  EXPECT_EQ(Count(JobStatus::kPending), 3);

  // (The clock moves first: whichever pass sees the acks, the engine's own
  // loop or ours, sees them at the same time.)
  clock_.Advance(milliseconds(10));
  EXPECT_EQ(AckAll(std::nullopt), 3);  // the canaries complete
  Pass();                              // wave 1: 12 jobs, at 10 a second
  v = View();
  EXPECT_EQ(v.state.phase, AutoredrivePhase::kWave);
  EXPECT_EQ(v.state.wave, 1);
  EXPECT_EQ(v.state.batch_target, 12);
  EXPECT_EQ(Count(JobStatus::kPending), 10);
  Advance(milliseconds(999));
  EXPECT_EQ(Count(JobStatus::kPending), 10);  // the rate holds the rest back
  Advance(milliseconds(1));
  EXPECT_EQ(Count(JobStatus::kPending), 12);

  EXPECT_EQ(AckAll(std::nullopt), 12);
  Pass();  // wave 2: 48 wide, 25 left
  EXPECT_EQ(View().state.batch_target, 25);
  EXPECT_EQ(Count(JobStatus::kPending), 10);
  Advance(seconds(1));
  EXPECT_EQ(Count(JobStatus::kPending), 20);
  Advance(seconds(1));
  EXPECT_EQ(Count(JobStatus::kPending), 25);
  EXPECT_EQ(AckAll(std::nullopt), 25);
  Pass();  // nothing eligible left: finished, cooling again
  v = View();
  EXPECT_EQ(v.state.phase, AutoredrivePhase::kCooling);
  EXPECT_EQ(v.state.last_decision, AutoredriveDecisionKind::kFinished);
  EXPECT_EQ(v.state.total_revived, 40);
  EXPECT_EQ(v.state.current_cooldown, seconds(60));
  EXPECT_EQ(v.eligible, 0);
  EXPECT_EQ(Count(JobStatus::kCompleted), 40);

  // Every job revived once, through the retry transition, named in its history.
  std::map<std::string, int> revivals = RevivalsByJob(ids);
  EXPECT_EQ(revivals.size(), ids.size());
  for (const auto& [id, n] : revivals) EXPECT_EQ(n, 1) << id;
  EXPECT_EQ(Decisions(Audit()), (std::vector<std::string>{"canary_started", "wave_started",
                                                          "wave_started", "finished"}));
  const std::string metrics = Scrape();
  EXPECT_EQ(Sample(metrics, R"(redrive_autoredrive_jobs_total{queue="payments"})"), 40);
  EXPECT_EQ(Sample(metrics, R"(redrive_autoredrive_decisions_total{outcome="wave_started"})"), 2);
}

TEST_F(EngineAutoredriveTest, CanariesDyingAgainStopItDoubleTheCooldownAndSayWhy) {
  EnqueueDeadMany(10);
  CreateWebhookParams hook;
  hook.name = "oncall";
  hook.url = "http://127.0.0.1:9/hook";
  hook.events = {"dlq.autoredrive"};
  hook.secret = "s3cret";
  auto created = Call<Webhook>(&Engine::CreateWebhook, std::move(hook));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Put(Policy());

  Advance(seconds(60));
  EXPECT_EQ(Count(JobStatus::kPending), 3);
  clock_.Advance(milliseconds(10));
  EXPECT_EQ(AckAll(std::string(kError)), 3);  // the same class again
  Pass();
  AutoredriveView v = View();
  EXPECT_EQ(v.state.phase, AutoredrivePhase::kBackedOff);
  EXPECT_EQ(v.state.current_cooldown, seconds(120));
  EXPECT_EQ(v.state.next_check_at, clock_.Now() + seconds(120));
  EXPECT_EQ(v.state.backoffs, 1);
  EXPECT_EQ(v.state.last_reason,
            "3 of 3 canaries died again with the same error class; stopped, next try in 2m");
  EXPECT_EQ(Count(JobStatus::kDeadletter), 10);

  std::vector<AuditEntry> audit = Audit();
  EXPECT_EQ(Decisions(audit), (std::vector<std::string>{"canary_started", "backed_off"}));
  EXPECT_EQ(audit.back().reason, v.state.last_reason);
  EXPECT_EQ(audit.back().action, "dlq.autoredrive");
  EXPECT_EQ(audit.front().count, 3);
  ListDeliveriesParams f;
  f.webhook_id = created->id;
  auto deliveries = Call<std::vector<WebhookDelivery>>(&Engine::ListDeliveries, f);
  ASSERT_TRUE(deliveries.ok());
  ASSERT_EQ(deliveries->size(), 2u);
  const WebhookDelivery& last = deliveries->front();  // newest first
  EXPECT_EQ(last.event, "dlq.autoredrive");
  EXPECT_NE(last.body.find(R"("decision":"backed_off")"), std::string::npos) << last.body;
  EXPECT_NE(last.body.find(R"("queue_name":"payments")"), std::string::npos);
  EXPECT_NE(last.body.find(R"("cooldown_seconds":120)"), std::string::npos);

  Advance(seconds(119));  // still backed off
  EXPECT_EQ(Count(JobStatus::kPending), 0);
  Advance(seconds(1));  // canaries again
  EXPECT_EQ(Count(JobStatus::kPending), 3);
  EXPECT_EQ(AckAll(std::string(kError)), 3);
  Pass();
  EXPECT_EQ(View().state.current_cooldown, seconds(240));  // doubled again
  EXPECT_EQ(View().state.backoffs, 2);
}

TEST_F(EngineAutoredriveTest, AJobAtTheCeilingIsNeverRevivedAgain) {
  const std::vector<std::string> ids = EnqueueDeadMany(3);
  AutoredrivePolicy p = Policy();
  p.max_revivals_per_job = 1;
  Put(p);
  Advance(seconds(60));
  EXPECT_EQ(AckAll(std::string(kError)), 3);
  Pass();
  EXPECT_EQ(View().state.phase, AutoredrivePhase::kBackedOff);
  EXPECT_EQ(View().eligible, 0);  // each was revived once: the ceiling
  for (int i = 0; i < 5; ++i) Advance(seconds(600));
  EXPECT_EQ(Count(JobStatus::kDeadletter), 3);
  EXPECT_EQ(View().state.phase, AutoredrivePhase::kCooling);
  for (const auto& [id, n] : RevivalsByJob(ids)) EXPECT_EQ(n, 1) << id;
  // An operator's manual redrive does not count: the ceiling is auto-redrive's.
  DlqRetryParams manual;
  manual.job_ids = {ids[0]};
  ASSERT_TRUE(Call<DlqRetryResult>(&Engine::DlqRetry, std::move(manual)).ok());
  EXPECT_EQ(Count(JobStatus::kPending), 1);
}

TEST_F(EngineAutoredriveTest, ADisabledPolicyDoesNothingAndSwitchingOffStopsIt) {
  EnqueueDeadMany(5);
  AutoredrivePolicy p = Policy();
  p.enabled = false;
  EXPECT_EQ(Put(p).view.state.phase, AutoredrivePhase::kIdle);
  for (int i = 0; i < 3; ++i) Advance(seconds(600));
  EXPECT_EQ(Count(JobStatus::kDeadletter), 5);
  EXPECT_EQ(View().state.phase, AutoredrivePhase::kIdle);

  p.enabled = true;  // on: cooling, then canaries
  EXPECT_EQ(Put(p).view.state.phase, AutoredrivePhase::kCooling);
  Advance(seconds(60));
  EXPECT_EQ(View().state.phase, AutoredrivePhase::kCanary);
  p.enabled = false;  // off mid-way: idle, nothing more
  EXPECT_EQ(Put(p).view.state.phase, AutoredrivePhase::kIdle);
  EXPECT_EQ(AckAll(std::nullopt), 3);  // the canaries complete: no wave follows
  for (int i = 0; i < 3; ++i) Advance(seconds(600));
  EXPECT_EQ(Count(JobStatus::kDeadletter), 2);
  EXPECT_EQ(View().state.total_revived, 3);  // the history stays

  ASSERT_TRUE(CallStatus(&Engine::DeleteAutoredrive, std::string(kQueue)).ok());
  EXPECT_EQ(CallStatus(&Engine::DeleteAutoredrive, std::string(kQueue)).code(),
            ErrorCode::kNotFound);
  EXPECT_EQ(Call<AutoredriveView>(&Engine::GetAutoredrive, std::string(kQueue)).status().code(),
            ErrorCode::kNotFound);
}

TEST_F(EngineAutoredriveTest, ANewCooldownRestartsTheCoolingUnderWay) {
  AutoredrivePolicy p = Policy();
  p.cooldown = seconds(600);
  EXPECT_EQ(Put(p).view.state.next_check_at, clock_.Now() + seconds(600));
  clock_.Advance(seconds(5));
  p.cooldown = seconds(30);
  const AutoredriveState s = Put(p).view.state;
  EXPECT_EQ(s.phase, AutoredrivePhase::kCooling);
  EXPECT_EQ(s.current_cooldown, seconds(30));
  EXPECT_EQ(s.next_check_at, clock_.Now() + seconds(30));
  p.canary_size = 7;  // other edits keep the state
  EXPECT_EQ(Put(p).view.state, s);
}

TEST_F(EngineAutoredriveTest, AnInvalidPolicyIsRefusedWithItsField) {
  AutoredrivePolicy p = Policy();
  p.canary_size = 0;
  auto r = Call<PutAutoredriveResult>(&Engine::PutAutoredrive, p);
  EXPECT_EQ(r.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(r.status().field(), "canary_size");
}

TEST_F(EngineAutoredriveTest, TwoEnginesOnOneFileRunItOnce) {
  const std::vector<std::string> ids = EnqueueDeadMany(30);
  auto second_store = store::SqliteStore::Open((dir_ / "redrive.db").string());
  ASSERT_TRUE(second_store.ok());
  SystemRandom second_random{7};
  EngineOptions options;
  options.node_id = "node-b";
  options.max_idle = milliseconds(50);
  auto second = std::make_unique<Engine>(**second_store, clock_, second_random, options);
  ASSERT_TRUE(second->Start().ok());
  Put(Policy());
  clock_.Advance(seconds(60));
  for (int i = 0; i < 20; ++i) {
    Pass();
    second->RunServicesOnce();
  }
  EXPECT_EQ(Count(JobStatus::kPending), 3);  // one canary batch, not two
  EXPECT_EQ(View().state.batch_job_ids.size(), 3u);
  std::map<std::string, int> revivals = RevivalsByJob(ids);
  EXPECT_EQ(revivals.size(), 3u);
  for (const auto& [id, n] : revivals) EXPECT_EQ(n, 1) << id;
  second.reset();
}

}  // namespace
}  // namespace redrive::engine::testing
