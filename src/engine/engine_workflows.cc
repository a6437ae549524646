// Workflows and job dependencies (core/workflow.h): create a workflow whole,
// read it and its jobs, cancel and retry it, and the dependencies of single
// jobs. What a completion does for the jobs waiting for it is
// dependency_release.h's, run inside every job write.
#include <algorithm>
#include <map>

#include "core/ids.h"
#include "engine/dependency_release.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/job_ops.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

namespace {

// At most this many dependents are listed for one job.
constexpr int kMaxListedDependents = 1000;
// The cycle check of an added dependency walks at most this many jobs.
constexpr size_t kMaxCycleWalk = 10000;

constexpr JobStatus kUnfinished[] = {JobStatus::kPending, JobStatus::kScheduled,
                                     JobStatus::kProcessing, JobStatus::kBlocked};
constexpr JobStatus kRedrivable[] = {JobStatus::kDeadletter, JobStatus::kQuarantined,
                                     JobStatus::kCancelled};

Status InJob(const Status& st, const std::string& key, size_t i) {
  return Status(st.code(), "job '" + key + "': " + st.message(),
                st.field().empty() ? "jobs[" + std::to_string(i) + "]"
                                   : "jobs[" + std::to_string(i) + "]." + st.field());
}

Result<CreateWorkflowResult> CreateOp(WriteTx& tx, TxContext& ctx, const CreateWorkflowParams& p) {
  std::vector<WorkflowJobSpec> specs;
  std::vector<EnqueueParams> items;
  std::vector<bool> blocked;
  for (const WorkflowJobParams& j : p.jobs) {
    specs.push_back({j.key, j.depends_on, j.mode});
    items.push_back(j.job);
    blocked.push_back(!j.depends_on.empty());
  }
  REDRIVE_RETURN_IF_ERROR(ValidateWorkflowGraph(specs));
  REDRIVE_ASSIGN_OR_RETURN(auto results, ops::EnqueueBatch(tx, ctx, items, blocked));
  CreateWorkflowResult out;
  std::map<std::string, std::string> id_of;
  Workflow w{NewUuidV7(ctx.now, ctx.random), p.name, p.description, p.metadata_json, ctx.now};
  std::vector<WorkflowMember> members;
  for (size_t i = 0; i < results.size(); ++i) {
    // One refused job refuses the workflow: the op fails and writes nothing.
    if (!results[i].ok()) return InJob(results[i].status(), p.jobs[i].key, i);
    id_of[p.jobs[i].key] = results[i]->id;
    out.job_ids.push_back({p.jobs[i].key, results[i]->id});
    members.push_back({w.id, results[i]->id, p.jobs[i].key, static_cast<int>(i)});
  }
  REDRIVE_RETURN_IF_ERROR(tx.InsertWorkflow(w, members));
  std::vector<JobDependency> edges;
  for (const WorkflowJobParams& j : p.jobs) {
    for (const std::string& d : j.depends_on) edges.push_back({id_of[j.key], id_of[d], j.mode});
  }
  REDRIVE_RETURN_IF_ERROR(tx.InsertDependencies(edges).status());
  out.workflow_id = w.id;
  REDRIVE_ASSIGN_OR_RETURN(out.workflow, tx.GetWorkflow(w.id));
  return out;
}

Result<WorkflowView> CancelOp(WriteTx& tx, TxContext& ctx, const std::string& id) {
  REDRIVE_RETURN_IF_ERROR(tx.GetWorkflow(id).status());
  REDRIVE_ASSIGN_OR_RETURN(
      std::vector<Job> jobs,
      tx.SelectWorkflowJobs(id, {std::begin(kUnfinished), std::end(kUnfinished)},
                            static_cast<int>(kMaxWorkflowJobs)));
  if (jobs.empty()) return Status::Conflict("workflow " + id + " has no unfinished job to cancel");
  REDRIVE_RETURN_IF_ERROR(ops::ApplyToLoadedBatch(tx, ctx, jobs, [](const Job&) -> Event {
                            return event::Cancel{};
                          }).status());
  return tx.GetWorkflow(id);
}

Result<WorkflowView> RetryOp(WriteTx& tx, TxContext& ctx, const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(WorkflowView before, tx.GetWorkflow(id));
  const WorkflowStatus status = before.status();
  if (status != WorkflowStatus::kFailed && status != WorkflowStatus::kCancelled) {
    return Status::Conflict(std::string("only a failed or cancelled workflow is retried; ") + id +
                            " is " + WorkflowStatusName(status));
  }
  REDRIVE_ASSIGN_OR_RETURN(
      std::vector<Job> jobs,
      tx.SelectWorkflowJobs(id, {std::begin(kRedrivable), std::end(kRedrivable)},
                            static_cast<int>(kMaxWorkflowJobs)));
  for (const Job& job : jobs) {
    if (job.status == JobStatus::kQuarantined) {
      REDRIVE_RETURN_IF_ERROR(
          ops::ApplyToLoaded(tx, ctx, job, event::ReleaseQuarantine{}).status());
      continue;
    }
    // Read after the jobs redriven before it: a dependency redriven here is
    // not completed, so its dependent waits blocked again.
    REDRIVE_ASSIGN_OR_RETURN(bool met, ops::DependenciesMet(tx, job.id));
    event::Retry retry;
    retry.source = "workflow_retry";
    retry.dependencies_met = met;
    REDRIVE_RETURN_IF_ERROR(ops::ApplyToLoaded(tx, ctx, job, retry).status());
  }
  return tx.GetWorkflow(id);
}

Result<WorkflowJobRow> WorkflowJobOp(ReadTx& tx, const std::string& id, const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<WorkflowMember> member, tx.GetWorkflowMember(job_id));
  if (!member || member->workflow_id != id) {
    return Status::NotFound("job " + job_id + " is not a job of workflow " + id);
  }
  WorkflowJobRow row;
  row.member = *member;
  REDRIVE_ASSIGN_OR_RETURN(row.job, tx.GetJob(job_id));
  REDRIVE_ASSIGN_OR_RETURN(JobDependencies links,
                           tx.GetJobDependencies(job_id, static_cast<int>(kMaxWorkflowJobs)));
  row.mode = links.mode;
  for (const DependencyLink& l : links.dependencies) row.depends_on.push_back(l.job_id);
  return row;
}

Result<AddDependenciesResult> AddDependenciesOp(WriteTx& tx, TxContext& ctx,
                                                const AddDependenciesParams& p) {
  REDRIVE_ASSIGN_OR_RETURN(Job job, tx.GetJob(p.job_id));
  REDRIVE_RETURN_IF_ERROR(p.scope.Check(job.queue_name));
  if (job.status != JobStatus::kPending && job.status != JobStatus::kScheduled &&
      job.status != JobStatus::kBlocked) {
    return Status::Conflict(std::string("job ") + job.id + " is " + JobStatusName(job.status) +
                            ": only a job that has not run yet takes dependencies");
  }
  REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> found, tx.GetJobs(p.depends_on));
  std::map<std::string, const Job*> by_id;
  for (const Job& j : found) by_id[j.id] = &j;
  std::vector<JobDependency> edges;
  for (size_t i = 0; i < p.depends_on.size(); ++i) {
    const std::string& dep = p.depends_on[i];
    const std::string field = "depends_on[" + std::to_string(i) + "]";
    if (dep == job.id) return Status::Validation(field, "a job cannot depend on itself");
    auto it = by_id.find(dep);
    if (it == by_id.end()) return Status::NotFound("dependency job " + dep + " not found");
    REDRIVE_RETURN_IF_ERROR(p.scope.Check(it->second->queue_name));
    REDRIVE_ASSIGN_OR_RETURN(bool cycle, tx.DependsOnTransitively(dep, job.id, kMaxCycleWalk));
    if (cycle) {
      return Status::Validation(field, "job " + dep + " already waits for job " + job.id +
                                           ": the dependency would close a cycle");
    }
    edges.push_back({job.id, dep, p.mode});
  }
  AddDependenciesResult out;
  REDRIVE_ASSIGN_OR_RETURN(out.added, tx.InsertDependencies(edges));
  REDRIVE_ASSIGN_OR_RETURN(out.dependencies_met, ops::DependenciesMet(tx, job.id));
  // The job's status follows what it now waits for.
  if (!out.dependencies_met && job.status != JobStatus::kBlocked) {
    REDRIVE_ASSIGN_OR_RETURN(Change c, ops::ApplyToLoaded(tx, ctx, job, event::Block{}));
    job = c.after;
  } else if (out.dependencies_met && job.status == JobStatus::kBlocked) {
    REDRIVE_ASSIGN_OR_RETURN(Change c, ops::ApplyToLoaded(tx, ctx, job, event::Unblock{}));
    job = c.after;
  }
  out.status = job.status;
  REDRIVE_ASSIGN_OR_RETURN(JobDependencies links,
                           tx.GetJobDependencies(job.id, static_cast<int>(kMaxWorkflowJobs)));
  for (const DependencyLink& l : links.dependencies) {
    out.dependencies.push_back({job.id, l.job_id, links.mode});
  }
  return out;
}

Result<EnqueueResult> EnqueueAfterOp(WriteTx& tx, TxContext& ctx, const EnqueueParams& p,
                                     const std::vector<std::string>& depends_on,
                                     const std::string& field, const QueueScope& scope) {
  REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> found, tx.GetJobs(depends_on));
  std::vector<JobStatus> statuses;
  for (const std::string& id : depends_on) {
    auto it = std::find_if(found.begin(), found.end(), [&](const Job& j) { return j.id == id; });
    if (it == found.end()) return Status::Validation(field, "no job " + id);
    REDRIVE_RETURN_IF_ERROR(scope.Check(it->queue_name));
    statuses.push_back(it->status);
  }
  const bool met = DecideReadiness(DependencyMode::kAll, statuses) == Readiness::kReady;
  REDRIVE_ASSIGN_OR_RETURN(auto results, ops::EnqueueBatch(tx, ctx, std::span(&p, 1), {!met}));
  REDRIVE_ASSIGN_OR_RETURN(EnqueueResult r, std::move(results[0]));
  if (!r.created) return r;  // an idempotent replay: its edges were written the first time
  std::vector<JobDependency> edges;
  for (const std::string& id : depends_on) edges.push_back({r.id, id, DependencyMode::kAll});
  REDRIVE_RETURN_IF_ERROR(tx.InsertDependencies(edges).status());
  return r;
}

// The job (in `scope`), its workflow, whether its dependencies hold, and at
// most `dependencies` of them and `dependents` of what waits for it.
Result<JobDependenciesView> DependenciesOp(ReadTx& tx, const std::string& job_id,
                                           const QueueScope& scope, int dependencies,
                                           int dependents) {
  JobDependenciesView v;
  REDRIVE_ASSIGN_OR_RETURN(v.job, tx.GetJob(job_id));
  REDRIVE_RETURN_IF_ERROR(scope.Check(v.job.queue_name));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<WorkflowMember> member, tx.GetWorkflowMember(job_id));
  if (member) v.workflow_id = member->workflow_id;
  REDRIVE_ASSIGN_OR_RETURN(v.links,
                           tx.GetJobDependencies(job_id, std::max(dependencies, dependents)));
  if (v.links.dependencies.size() > static_cast<size_t>(dependencies)) {
    v.links.dependencies.resize(static_cast<size_t>(dependencies));
  }
  if (v.links.dependents.size() > static_cast<size_t>(dependents)) {
    v.links.dependents.resize(static_cast<size_t>(dependents));
  }
  REDRIVE_ASSIGN_OR_RETURN(std::optional<store::DependencyState> state,
                           tx.GetDependencyState(job_id));
  v.readiness = state ? DecideReadiness(state->mode, state->statuses) : Readiness::kReady;
  v.dependencies_met = v.readiness == Readiness::kReady;
  return v;
}

}  // namespace

void Engine::CreateWorkflow(CreateWorkflowParams p, Callback<CreateWorkflowResult> done) {
  impl_->Write<CreateWorkflowResult>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) { return CreateOp(tx, ctx, p); },
      std::move(done));
}

void Engine::GetWorkflow(std::string id, Callback<WorkflowView> done) {
  impl_->Read<WorkflowView>([id = std::move(id)](ReadTx& tx) { return tx.GetWorkflow(id); },
                            std::move(done));
}

void Engine::ListWorkflows(ListWorkflowsParams p, Callback<std::vector<WorkflowView>> done) {
  store::WorkflowFilter f{.status = p.status, .limit = p.limit, .offset = p.offset};
  impl_->Read<std::vector<WorkflowView>>([f](ReadTx& tx) { return tx.ListWorkflows(f); },
                                         std::move(done));
}

void Engine::CancelWorkflow(std::string id, Callback<WorkflowView> done) {
  impl_->Write<WorkflowView>(
      [id = std::move(id)](WriteTx& tx, TxContext& ctx) { return CancelOp(tx, ctx, id); },
      std::move(done));
}

void Engine::RetryWorkflow(std::string id, Callback<WorkflowView> done) {
  impl_->Write<WorkflowView>(
      [id = std::move(id)](WriteTx& tx, TxContext& ctx) { return RetryOp(tx, ctx, id); },
      std::move(done));
}

void Engine::ListWorkflowJobs(std::string id, int limit, int offset,
                              Callback<std::vector<WorkflowJobRow>> done) {
  impl_->Read<std::vector<WorkflowJobRow>>(
      [id = std::move(id), limit, offset](ReadTx& tx) -> Result<std::vector<WorkflowJobRow>> {
        REDRIVE_RETURN_IF_ERROR(tx.GetWorkflow(id).status());
        return tx.ListWorkflowJobs(id, limit, offset);
      },
      std::move(done));
}

void Engine::GetWorkflowJob(std::string id, std::string job_id, Callback<WorkflowJobRow> done) {
  impl_->Read<WorkflowJobRow>([id = std::move(id), job_id = std::move(job_id)](
                                  ReadTx& tx) { return WorkflowJobOp(tx, id, job_id); },
                              std::move(done));
}

void Engine::GetJobDependencies(std::string job_id, QueueScope scope,
                                Callback<JobDependenciesView> done) {
  impl_->Read<JobDependenciesView>(
      [job_id = std::move(job_id), scope = std::move(scope)](ReadTx& tx) {
        return DependenciesOp(tx, job_id, scope, kMaxListedDependents, kMaxListedDependents);
      },
      std::move(done));
}

void Engine::GetJobWithLinks(std::string job_id, QueueScope scope,
                             Callback<JobDependenciesView> done) {
  impl_->Read<JobDependenciesView>(
      [job_id = std::move(job_id), scope = std::move(scope)](ReadTx& tx) {
        return DependenciesOp(tx, job_id, scope, 2, 0);
      },
      std::move(done));
}

void Engine::AddJobDependencies(AddDependenciesParams p, Callback<AddDependenciesResult> done) {
  impl_->Write<AddDependenciesResult>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) { return AddDependenciesOp(tx, ctx, p); },
      std::move(done));
}

void Engine::EnqueueAfter(EnqueueParams p, std::vector<std::string> depends_on, std::string field,
                          QueueScope scope, Callback<EnqueueResult> done) {
  impl_->Write<EnqueueResult>(
      [p = std::move(p), depends_on = std::move(depends_on), field = std::move(field),
       scope = std::move(scope)](WriteTx& tx, TxContext& ctx) {
        return EnqueueAfterOp(tx, ctx, p, depends_on, field, scope);
      },
      std::move(done));
}

}  // namespace redrive::engine
