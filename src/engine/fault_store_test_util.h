// A Store for tests of the write executors: it forwards to a real store
// (SQLite) but reports kTransactionPerRequest with `writers` connections, so
// the engine runs its PooledExecutor on it (SQLite's writer mutex serializes
// the transactions: fine for a test), and it fails BeginWrite() or Commit()
// when a test's plan says so (ABORTED for a lost race, UNAVAILABLE for a
// lost database). A failed Commit() commits nothing. Like a shared store it
// can give a wake channel (NewWakeChannel), when a test sets one up.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "store/store.h"

namespace redrive::engine::testing {

class FaultStore final : public store::Store {
 public:
  enum class Point { kBeginWrite, kCommit };
  // Decides the fate of one BeginWrite() or Commit(): OK lets it through.
  // `inserted_jobs` is how many jobs the transaction inserted (0 for
  // BeginWrite). Called on executor threads.
  using Plan = std::function<Status(Point, int inserted_jobs)>;

  explicit FaultStore(store::Store& inner, size_t writers = 4) : inner_(inner), writers_(writers) {}

  // What NewWakeChannel() returns (call before the engine starts).
  void SetWakeChannels(std::function<std::unique_ptr<store::WakeChannel>()> make) {
    wake_channels_ = std::move(make);
  }

  void SetPlan(Plan plan) {
    std::lock_guard<std::mutex> lock(mu_);
    plan_ = std::move(plan);
  }
  // Calls of each point so far (failed ones included), and commits made.
  int begins() const { return begins_; }
  int commit_calls() const { return commit_calls_; }
  int commits() const { return commits_; }
  // Calls of ReadForClaim and of GetJobs (a coalesced claim reads once for
  // all its claimers; coalesced completes read their jobs in one GetJobs).
  int claim_reads() const { return claim_reads_; }
  int job_batch_reads() const { return job_batch_reads_; }
  // Calls of InsertJobs (coalesced enqueues insert in one batch).
  int insert_batches() const { return insert_batches_; }

  store::StoreTraits traits() const override {
    return {store::WriteModel::kTransactionPerRequest, writers_};
  }
  std::unique_ptr<store::WakeChannel> NewWakeChannel() override {
    return wake_channels_ ? wake_channels_() : nullptr;
  }
  Status Migrate() override { return inner_.Migrate(); }
  Result<std::unique_ptr<store::ReadTx>> BeginRead() override { return inner_.BeginRead(); }
  Result<std::unique_ptr<store::WriteTx>> BeginWrite() override {
    ++begins_;
    REDRIVE_RETURN_IF_ERROR(Decide(Point::kBeginWrite, 0));
    REDRIVE_ASSIGN_OR_RETURN(auto tx, inner_.BeginWrite());
    return std::unique_ptr<store::WriteTx>(std::make_unique<Tx>(*this, std::move(tx)));
  }
  Status Ping() override { return inner_.Ping(); }
  Result<std::unique_ptr<store::Leadership>> NewLeadership(const std::string& node_id) override {
    return inner_.NewLeadership(node_id);
  }
  std::string Describe() const override { return "fault store on " + inner_.Describe(); }

 private:
  Status Decide(Point point, int inserted_jobs) {
    Plan plan;
    {
      std::lock_guard<std::mutex> lock(mu_);
      plan = plan_;
    }
    return plan ? plan(point, inserted_jobs) : Status::Ok();
  }

  class Tx final : public store::WriteTx {
   public:
    Tx(FaultStore& owner, std::unique_ptr<store::WriteTx> inner)
        : owner_(owner), inner_(std::move(inner)) {}

    Status Commit() override {
      ++owner_.commit_calls_;
      REDRIVE_RETURN_IF_ERROR(owner_.Decide(Point::kCommit, inserted_jobs_));
      REDRIVE_RETURN_IF_ERROR(inner_->Commit());
      ++owner_.commits_;
      return Status::Ok();
    }

    Result<Job> GetJob(const std::string& id) override { return inner_->GetJob(id); }
    Result<std::vector<Job>> ListJobs(const store::JobFilter& f, bool with_payload) override {
      return inner_->ListJobs(f, with_payload);
    }
    Result<std::vector<Job>> ListDeadLetters(const store::JobFilter& f) override {
      return inner_->ListDeadLetters(f);
    }
    Result<std::vector<DeadLetterGroup>> SummarizeDeadLetters(const store::JobFilter& f) override {
      return inner_->SummarizeDeadLetters(f);
    }
    Result<std::optional<std::string>> FindIdempotencyKey(const std::string& key) override {
      return inner_->FindIdempotencyKey(key);
    }
    Result<std::vector<Job>> GetJobs(const std::vector<std::string>& ids) override {
      ++owner_.job_batch_reads_;
      return inner_->GetJobs(ids);
    }
    Result<store::ClaimReads> ReadForClaim(const std::string& queue_name,
                                           std::span<const std::string> worker_ids, Instant now,
                                           int limit) override {
      ++owner_.claim_reads_;
      return inner_->ReadForClaim(queue_name, worker_ids, now, limit);
    }
    Result<std::vector<HistoryEntry>> GetHistory(const std::string& job_id) override {
      return inner_->GetHistory(job_id);
    }
    Result<StatusCounts> CountJobs(const std::optional<std::string>& queue_name) override {
      return inner_->CountJobs(queue_name);
    }
    Result<std::optional<Instant>> OldestDeadletterAt(const std::string& queue_name) override {
      return inner_->OldestDeadletterAt(queue_name);
    }
    Result<std::optional<Instant>> OldestWaitingCreatedAt(const std::string& queue_name) override {
      return inner_->OldestWaitingCreatedAt(queue_name);
    }
    Result<std::optional<QueueConfig>> GetQueue(const std::string& name) override {
      return inner_->GetQueue(name);
    }
    Result<std::vector<QueueConfig>> ListQueues() override { return inner_->ListQueues(); }
    Result<std::optional<WorkerInfo>> GetWorker(const std::string& id) override {
      return inner_->GetWorker(id);
    }
    Result<std::vector<WorkerInfo>> ListWorkers(int limit, int offset) override {
      return inner_->ListWorkers(limit, offset);
    }
    Result<std::optional<Instant>> NextScheduledAt() override { return inner_->NextScheduledAt(); }
    Result<std::optional<Instant>> NextLeaseExpiry() override { return inner_->NextLeaseExpiry(); }
    Result<std::optional<Instant>> NextDeadline() override { return inner_->NextDeadline(); }
    Result<std::vector<Webhook>> ListWebhooks() override { return inner_->ListWebhooks(); }
    Result<int64_t> WebhooksVersion() override { return inner_->WebhooksVersion(); }
    Result<std::vector<StoredApiKey>> ListApiKeys() override { return inner_->ListApiKeys(); }
    Result<StoredApiKey> GetApiKey(const std::string& id) override { return inner_->GetApiKey(id); }
    Result<int64_t> ApiKeysVersion() override { return inner_->ApiKeysVersion(); }
    Status InsertApiKey(const StoredApiKey& key) override { return inner_->InsertApiKey(key); }
    Status UpdateApiKey(const StoredApiKey& key) override { return inner_->UpdateApiKey(key); }
    Status RecordApiKeyUse(const std::vector<ApiKeyUse>& uses) override {
      return inner_->RecordApiKeyUse(uses);
    }
    Result<WorkflowView> GetWorkflow(const std::string& id) override {
      return inner_->GetWorkflow(id);
    }
    Result<std::vector<WorkflowView>> ListWorkflows(const store::WorkflowFilter& f) override {
      return inner_->ListWorkflows(f);
    }
    Result<std::vector<WorkflowJobRow>> ListWorkflowJobs(const std::string& workflow_id, int limit,
                                                         int offset) override {
      return inner_->ListWorkflowJobs(workflow_id, limit, offset);
    }
    Result<std::optional<WorkflowMember>> GetWorkflowMember(const std::string& job_id) override {
      return inner_->GetWorkflowMember(job_id);
    }
    Result<JobDependencies> GetJobDependencies(const std::string& job_id, int limit) override {
      return inner_->GetJobDependencies(job_id, limit);
    }
    Result<std::optional<store::DependencyState>> GetDependencyState(
        const std::string& job_id) override {
      return inner_->GetDependencyState(job_id);
    }
    Result<bool> DependsOnTransitively(const std::string& job_id, const std::string& on_job_id,
                                       size_t max_jobs) override {
      return inner_->DependsOnTransitively(job_id, on_job_id, max_jobs);
    }
    Status InsertWorkflow(const Workflow& workflow,
                          const std::vector<WorkflowMember>& members) override {
      return inner_->InsertWorkflow(workflow, members);
    }
    Result<long long> InsertDependencies(const std::vector<JobDependency>& edges) override {
      return inner_->InsertDependencies(edges);
    }
    Result<long long> MarkDependencyMet(const std::string& job_id) override {
      return inner_->MarkDependencyMet(job_id);
    }
    Result<std::vector<store::BlockedDependent>> SelectBlockedDependents(
        const std::string& job_id) override {
      return inner_->SelectBlockedDependents(job_id);
    }
    Result<std::vector<Job>> SelectWorkflowJobs(const std::string& workflow_id,
                                                const std::vector<JobStatus>& statuses,
                                                int limit) override {
      return inner_->SelectWorkflowJobs(workflow_id, statuses, limit);
    }
    Result<std::optional<std::string>> GetTokenSecret() override {
      return inner_->GetTokenSecret();
    }
    Result<std::vector<RefreshToken>> ListRefreshTokens(const std::string& key_id) override {
      return inner_->ListRefreshTokens(key_id);
    }
    Result<std::optional<RefreshToken>> GetRefreshToken(const std::string& token_hash) override {
      return inner_->GetRefreshToken(token_hash);
    }
    Result<std::string> EnsureTokenSecret(const std::string& candidate) override {
      return inner_->EnsureTokenSecret(candidate);
    }
    Result<long long> InsertRefreshToken(const RefreshToken& token,
                                         size_t max_live_per_key) override {
      return inner_->InsertRefreshToken(token, max_live_per_key);
    }
    Result<std::optional<RefreshToken>> EndRefreshToken(const std::string& token_hash, Instant now,
                                                        std::string_view reason) override {
      return inner_->EndRefreshToken(token_hash, now, reason);
    }
    Result<long long> EndRefreshTokensOfKey(const std::string& key_id, Instant now,
                                            std::string_view reason) override {
      return inner_->EndRefreshTokensOfKey(key_id, now, reason);
    }
    Result<long long> DeleteOldRefreshTokens(Instant before, int limit) override {
      return inner_->DeleteOldRefreshTokens(before, limit);
    }
    Result<std::vector<ThroughputPoint>> ReadThroughput(
        const std::optional<std::string>& queue_name, Instant after) override {
      return inner_->ReadThroughput(queue_name, after);
    }
    Result<JobCounts> SumHourlyThroughput(const std::optional<std::string>& queue_name,
                                          Instant from_hour) override {
      return inner_->SumHourlyThroughput(queue_name, from_hour);
    }
    Result<std::vector<AuditEntry>> ListAudit(const AuditFilter& f) override {
      return inner_->ListAudit(f);
    }
    Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(const std::string& scope,
                                                                  const std::string& key) override {
      return inner_->GetIdempotencyRecord(scope, key);
    }
    Result<Schedule> GetSchedule(const std::string& id) override { return inner_->GetSchedule(id); }
    Result<std::vector<Schedule>> ListSchedules(const store::ScheduleFilter& f) override {
      return inner_->ListSchedules(f);
    }
    Result<long long> CountSchedules() override { return inner_->CountSchedules(); }
    Result<std::vector<ScheduleRun>> ListScheduleRuns(const std::string& schedule_id, int limit,
                                                      int offset) override {
      return inner_->ListScheduleRuns(schedule_id, limit, offset);
    }
    Result<std::optional<Instant>> NextScheduleDue() override { return inner_->NextScheduleDue(); }
    Result<store::OperationRecord> GetOperation(const std::string& id) override {
      return inner_->GetOperation(id);
    }
    Result<std::vector<store::OperationRecord>> ListOperations(int limit, int offset) override {
      return inner_->ListOperations(limit, offset);
    }
    Result<long long> CountSelectedJobs(const store::JobSelection& sel) override {
      return inner_->CountSelectedJobs(sel);
    }
    Result<std::optional<store::AutoredriveRecord>> GetAutoredrive(
        const std::string& queue_name) override {
      return inner_->GetAutoredrive(queue_name);
    }
    Result<std::vector<store::AutoredriveRecord>> ListAutoredrive() override {
      return inner_->ListAutoredrive();
    }
    Status InsertAutoredrive(const store::AutoredriveRecord& rec) override {
      return inner_->InsertAutoredrive(rec);
    }
    Status UpdateAutoredrivePolicy(const AutoredrivePolicy& policy) override {
      return inner_->UpdateAutoredrivePolicy(policy);
    }
    Status UpdateAutoredriveState(const std::string& queue_name,
                                  const AutoredriveState& state) override {
      return inner_->UpdateAutoredriveState(queue_name, state);
    }
    Status DeleteAutoredrive(const std::string& queue_name) override {
      return inner_->DeleteAutoredrive(queue_name);
    }
    Result<long long> CountAutoRevivals(const std::vector<std::string>& ids) override {
      return inner_->CountAutoRevivals(ids);
    }
    Result<std::optional<Instant>> NextOperationDue() override {
      return inner_->NextOperationDue();
    }
    Result<Webhook> GetWebhook(const std::string& id) override { return inner_->GetWebhook(id); }
    Result<std::vector<WebhookDelivery>> ListDeliveries(const store::DeliveryFilter& f) override {
      return inner_->ListDeliveries(f);
    }
    Result<WebhookDelivery> GetDelivery(const std::string& id) override {
      return inner_->GetDelivery(id);
    }
    Result<std::optional<Instant>> NextDeliveryDue() override { return inner_->NextDeliveryDue(); }
    Status Savepoint() override { return inner_->Savepoint(); }
    Status ReleaseSavepoint() override { return inner_->ReleaseSavepoint(); }
    Status RollbackToSavepoint() override { return inner_->RollbackToSavepoint(); }
    Result<store::InsertOutcome> InsertJob(const Job& job, const HistoryEntry& created) override {
      ++inserted_jobs_;
      return inner_->InsertJob(job, created);
    }
    // Through InsertJob above, so that every job is counted.
    Result<std::vector<store::InsertOutcome>> InsertJobs(const std::vector<NewJob>& jobs) override {
      ++owner_.insert_batches_;
      return store::WriteTx::InsertJobs(jobs);
    }
    Status ApplyChange(const Change& change) override { return inner_->ApplyChange(change); }
    Result<std::vector<Job>> SelectClaimable(const std::string& queue_name, Instant now,
                                             int limit) override {
      return inner_->SelectClaimable(queue_name, now, limit);
    }
    Result<std::vector<Job>> SelectDueScheduled(const std::optional<std::string>& queue_name,
                                                Instant now, int limit) override {
      return inner_->SelectDueScheduled(queue_name, now, limit);
    }
    Result<std::vector<Job>> SelectExpiredLeases(Instant now, int limit) override {
      return inner_->SelectExpiredLeases(now, limit);
    }
    Result<std::vector<Job>> SelectPastDeadline(Instant now, int limit) override {
      return inner_->SelectPastDeadline(now, limit);
    }
    Result<std::vector<Job>> SelectHeldBy(const std::string& worker_id, int limit) override {
      return inner_->SelectHeldBy(worker_id, limit);
    }
    Result<std::vector<Job>> SelectDeadLetters(const store::DeadLetterSelection& sel) override {
      return inner_->SelectDeadLetters(sel);
    }
    Result<long long> CountDeadLetters(const store::DeadLetterSelection& sel) override {
      return inner_->CountDeadLetters(sel);
    }
    Result<std::vector<store::FingerprintBackfill>> SelectUnfingerprinted(int limit) override {
      return inner_->SelectUnfingerprinted(limit);
    }
    Result<long long> SetErrorFingerprints(
        const std::vector<store::FingerprintBackfill>& rows) override {
      return inner_->SetErrorFingerprints(rows);
    }
    Result<long long> DeleteJobs(const std::vector<std::string>& ids) override {
      return inner_->DeleteJobs(ids);
    }
    Result<std::vector<std::string>> SelectRetentionExpired(const std::string& queue_name,
                                                            JobStatus status, Instant before,
                                                            int limit) override {
      return inner_->SelectRetentionExpired(queue_name, status, before, limit);
    }
    Result<QueueConfig> EnsureQueue(const std::string& name, Instant now,
                                    size_t max_queues) override {
      return inner_->EnsureQueue(name, now, max_queues);
    }
    Result<std::optional<QueueConfig>> LockQueue(const std::string& name) override {
      return inner_->LockQueue(name);
    }
    Status PutQueue(const QueueConfig& config) override { return inner_->PutQueue(config); }
    Status DeleteQueue(const std::string& name, bool delete_jobs) override {
      return inner_->DeleteQueue(name, delete_jobs);
    }
    Result<std::optional<WorkerInfo>> LockWorker(const std::string& id) override {
      return inner_->LockWorker(id);
    }
    Status PutWorker(const WorkerInfo& worker) override { return inner_->PutWorker(worker); }
    Result<long long> DeleteOfflineWorkers(Instant before, int limit) override {
      return inner_->DeleteOfflineWorkers(before, limit);
    }
    Status InsertWebhook(const Webhook& webhook, size_t max_webhooks) override {
      return inner_->InsertWebhook(webhook, max_webhooks);
    }
    Status UpdateWebhook(const Webhook& webhook) override { return inner_->UpdateWebhook(webhook); }
    Status DeleteWebhook(const std::string& id) override { return inner_->DeleteWebhook(id); }
    Status InsertDelivery(const WebhookDelivery& delivery) override {
      return inner_->InsertDelivery(delivery);
    }
    Status UpdateDelivery(const WebhookDelivery& delivery) override {
      return inner_->UpdateDelivery(delivery);
    }
    Result<std::vector<WebhookDelivery>> SelectDueDeliveries(Instant now, int limit) override {
      return inner_->SelectDueDeliveries(now, limit);
    }
    Result<long long> DeleteFinishedDeliveries(Instant before, int limit) override {
      return inner_->DeleteFinishedDeliveries(before, limit);
    }
    Status InsertOperation(const store::OperationRecord& op, size_t max_unfinished) override {
      return inner_->InsertOperation(op, max_unfinished);
    }
    Status UpdateOperation(const Operation& op) override { return inner_->UpdateOperation(op); }
    Result<std::vector<store::OperationRecord>> SelectDueOperations(Instant now,
                                                                    int limit) override {
      return inner_->SelectDueOperations(now, limit);
    }
    Result<store::SelectedJobs> SelectJobsAfter(const store::JobSelection& sel) override {
      return inner_->SelectJobsAfter(sel);
    }
    Result<long long> DeleteFinishedOperationsBefore(Instant before, int limit) override {
      return inner_->DeleteFinishedOperationsBefore(before, limit);
    }
    Status InsertSchedule(const Schedule& schedule) override {
      return inner_->InsertSchedule(schedule);
    }
    Status UpdateSchedule(const Schedule& schedule) override {
      return inner_->UpdateSchedule(schedule);
    }
    Status DeleteSchedule(const std::string& id) override { return inner_->DeleteSchedule(id); }
    Result<std::vector<Schedule>> SelectDueSchedules(Instant now, int limit) override {
      return inner_->SelectDueSchedules(now, limit);
    }
    Status InsertScheduleRun(const ScheduleRun& run) override {
      return inner_->InsertScheduleRun(run);
    }
    Result<long long> DeleteOldScheduleRuns(int keep_per_schedule, Instant before,
                                            int limit) override {
      return inner_->DeleteOldScheduleRuns(keep_per_schedule, before, limit);
    }
    Status RecordThroughput(const ThroughputSample& sample) override {
      return inner_->RecordThroughput(sample);
    }
    Result<long long> DeleteThroughputBefore(Instant before) override {
      return inner_->DeleteThroughputBefore(before);
    }
    Result<long long> DeleteHourlyThroughputBefore(Instant before) override {
      return inner_->DeleteHourlyThroughputBefore(before);
    }
    Status InsertAuditEntry(const AuditEntry& entry) override {
      return inner_->InsertAuditEntry(entry);
    }
    Result<long long> DeleteAuditBefore(Instant before, int limit) override {
      return inner_->DeleteAuditBefore(before, limit);
    }
    Result<bool> ReserveIdempotencyKey(const IdempotencyRecord& record) override {
      return inner_->ReserveIdempotencyKey(record);
    }
    Status CompleteIdempotencyKey(const IdempotencyRecord& record) override {
      return inner_->CompleteIdempotencyKey(record);
    }
    Status DeleteIdempotencyKey(const std::string& scope, const std::string& key) override {
      return inner_->DeleteIdempotencyKey(scope, key);
    }
    Result<long long> DeleteExpiredIdempotencyKeys(Instant now, int limit) override {
      return inner_->DeleteExpiredIdempotencyKeys(now, limit);
    }

   private:
    FaultStore& owner_;
    std::unique_ptr<store::WriteTx> inner_;
    int inserted_jobs_ = 0;
  };

  store::Store& inner_;
  const size_t writers_;
  std::function<std::unique_ptr<store::WakeChannel>()> wake_channels_;
  std::mutex mu_;
  Plan plan_;
  std::atomic<int> begins_{0};
  std::atomic<int> commit_calls_{0};
  std::atomic<int> commits_{0};
  std::atomic<int> claim_reads_{0};
  std::atomic<int> job_batch_reads_{0};
  std::atomic<int> insert_batches_{0};
};

// A plan that fails the first `n` calls of `point` (of transactions that
// inserted a job, when only_inserts) with `failure`, then lets all through.
inline FaultStore::Plan FailFirst(FaultStore::Point point, int n, Status failure,
                                  bool only_inserts = false) {
  auto left = std::make_shared<std::atomic<int>>(n);
  return [=](FaultStore::Point p, int inserted_jobs) -> Status {
    if (p != point || (only_inserts && inserted_jobs == 0)) return Status::Ok();
    if (left->fetch_sub(1) > 0) return failure;
    return Status::Ok();
  };
}

}  // namespace redrive::engine::testing
