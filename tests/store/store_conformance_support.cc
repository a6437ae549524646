#include <sstream>

#include "core/ids.h"
#include "core/random.h"
#include "core/time_format.h"
#include "store_conformance.h"

namespace redrive::store::testing {

Instant T(int64_t seconds) {
  return InstantFromMicros(1'800'000'000'000'000 + seconds * 1'000'000);
}

Job MakeJob(const std::string& id, const std::string& queue, Instant created) {
  Job job;
  job.id = id;
  job.queue_name = queue;
  job.status = JobStatus::kPending;
  job.payload = R"({"to":"a@example.com","n":)" + std::to_string(id.size()) + "}";
  job.priority = 0;
  job.max_retries = 5;
  job.timeout_seconds = 120;
  job.backoff = BackoffPolicy{std::chrono::milliseconds(250), std::chrono::milliseconds(9000),
                              std::chrono::milliseconds(17)};
  job.created_at = created;
  job.updated_at = created;
  job.scheduled_at = created;
  return job;
}

Job AsScheduled(Job job, Instant due) {
  job.status = JobStatus::kScheduled;
  job.scheduled_at = due;
  return job;
}

Job AsProcessing(Job job, const std::string& worker, const std::string& lease,
                 Instant lease_expires) {
  job.status = JobStatus::kProcessing;
  job.assigned_worker_id = worker;
  job.lease_id = lease;
  job.lease_expires_at = lease_expires;
  job.started_at = job.scheduled_at;
  job.attempts += 1;
  return job;
}

Job AsDead(Job job, DeadReason reason, Instant dead_at) {
  job.status = JobStatus::kDeadletter;
  job.dead_reason = reason;
  job.deadlettered_at = dead_at;
  job.completed_at = dead_at;
  job.last_error = "boom";
  job.updated_at = dead_at;
  return job;
}

Job AsCompleted(Job job, Instant done_at) {
  job.status = JobStatus::kCompleted;
  job.completed_at = done_at;
  job.result = R"({"ok":true})";
  job.updated_at = done_at;
  return job;
}

Job AsCancelled(Job job, Instant at) {
  job.status = JobStatus::kCancelled;
  job.completed_at = at;
  job.updated_at = at;
  return job;
}

std::string HistoryId(const std::string& seed) {
  FixedRandom random(std::hash<std::string>{}(seed));
  return NewUuidV7(T(0), random);
}

HistoryEntry CreatedEntry(const Job& job) {
  HistoryEntry h;
  h.id = HistoryId(job.id + "/created");
  h.job_id = job.id;
  h.event_type = "created";
  h.details_json = R"({"queue_name":")" + job.queue_name + "\"}";
  h.created_at = job.created_at;
  return h;
}

std::vector<std::string> Ids(const std::vector<Job>& jobs) {
  std::vector<std::string> ids;
  for (const Job& j : jobs) ids.push_back(j.id);
  return ids;
}

std::string DebugString(const Job& j) {
  auto t = [](const std::optional<Instant>& i) { return i ? FormatTime(*i) : "-"; };
  auto s = [](const std::optional<std::string>& v) { return v ? *v : "-"; };
  std::ostringstream o;
  o << "{id=" << j.id << " queue=" << j.queue_name << " status=" << JobStatusName(j.status)
    << " payload=" << j.payload << " result=" << s(j.result) << " priority=" << j.priority
    << " retry=" << j.retry_count << "/" << j.max_retries << " timeout=" << j.timeout_seconds
    << " backoff=" << j.backoff.base.count() << "," << j.backoff.max.count() << ","
    << j.backoff.jitter.count() << " error=" << s(j.last_error)
    << " dead=" << DeadReasonName(j.dead_reason) << " tags=" << j.tags.size()
    << " key=" << s(j.idempotency_key) << " created=" << FormatTime(j.created_at)
    << " updated=" << FormatTime(j.updated_at) << " scheduled=" << FormatTime(j.scheduled_at)
    << " started=" << t(j.started_at) << " completed=" << t(j.completed_at)
    << " expires=" << t(j.expires_at) << " dead_at=" << t(j.deadlettered_at)
    << " worker=" << s(j.assigned_worker_id) << " lease=" << s(j.lease_id)
    << " lease_exp=" << t(j.lease_expires_at) << " attempts=" << j.attempts
    << " expiries=" << j.lease_expiries << "}";
  return o.str();
}

void StoreConformanceTest::SetUp() {
  store_ = GetParam().make();
  ASSERT_NE(store_, nullptr);
}

std::unique_ptr<WriteTx> StoreConformanceTest::BeginWrite() {
  auto tx = store_->BeginWrite();
  EXPECT_TRUE(tx.ok()) << tx.status().ToString();
  return tx.ok() ? std::move(*tx) : nullptr;
}

std::unique_ptr<ReadTx> StoreConformanceTest::BeginRead() {
  auto tx = store_->BeginRead();
  EXPECT_TRUE(tx.ok()) << tx.status().ToString();
  return tx.ok() ? std::move(*tx) : nullptr;
}

void StoreConformanceTest::Write(const std::function<void(WriteTx&)>& fn) {
  auto tx = BeginWrite();
  ASSERT_NE(tx, nullptr);
  fn(*tx);
  Status st = tx->Commit();
  ASSERT_TRUE(st.ok()) << st.ToString();
}

void StoreConformanceTest::Insert(const std::vector<Job>& jobs) {
  Write([&](WriteTx& tx) {
    for (const Job& job : jobs) {
      auto out = tx.InsertJob(job, CreatedEntry(job));
      ASSERT_TRUE(out.ok()) << out.status().ToString() << " inserting " << DebugString(job);
      EXPECT_TRUE(out->created);
    }
  });
}

Job StoreConformanceTest::Get(const std::string& id) {
  auto tx = BeginRead();
  if (tx == nullptr) return {};
  auto job = tx->GetJob(id);
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  return job.ok() ? *job : Job{};
}

std::unique_ptr<Leadership> StoreConformanceTest::NewLeadership(const std::string& node_id) {
  auto leadership = store_->NewLeadership(node_id);
  EXPECT_TRUE(leadership.ok()) << leadership.status().ToString();
  return leadership.ok() ? std::move(*leadership) : nullptr;
}

}  // namespace redrive::store::testing
