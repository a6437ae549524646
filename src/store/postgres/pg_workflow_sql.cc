#include "store/postgres/pg_workflow_sql.h"

#include <map>

#include "store/postgres/pg_job_columns.h"
#include "store/postgres/pg_job_sql.h"
#include "store/postgres/pg_reads.h"
#include "store/workflow_status_sql.h"

namespace redrive::store::postgres::workflow_sql {

// Version 18: whether each dependency is met (its job completed), as
// SQLite's version 17 (sqlite/workflow_sql.cc): a completion probes
// job_dependencies_unmet once per dependent instead of reading every
// dependency's status.
const char kMetSchema[] = R"sql(
ALTER TABLE redrive.job_dependencies ADD COLUMN met boolean NOT NULL DEFAULT false;
UPDATE redrive.job_dependencies AS d SET met = true
  FROM redrive.jobs AS j WHERE j.id = d.depends_on_job_id AND j.status = 'completed';
CREATE INDEX job_dependencies_unmet ON redrive.job_dependencies (job_id) WHERE NOT met;
)sql";

// Version 16: workflows and job dependencies, as SQLite's version 15
// (sqlite/workflow_sql.cc): a workflow row holds what was given at
// creation, its status and counts are read from its jobs; a job's edges and
// membership go with it (ON DELETE CASCADE, so retention needs no change);
// job_dependencies_dependents finds what waits for a job that completes.
// The status `blocked` replaces the CHECK of jobs.status (it reads the
// table once).
const char kSchema[] = R"sql(
ALTER TABLE redrive.jobs
  DROP CONSTRAINT jobs_status_check,
  ADD CONSTRAINT jobs_status_check CHECK (status IN
    ('pending','scheduled','processing','completed','deadletter','cancelled','quarantined',
     'blocked'));
CREATE TABLE redrive.workflows (
  id          text COLLATE "C" PRIMARY KEY,
  name        text NOT NULL,
  description text,
  metadata    text NOT NULL,
  created_at  bigint NOT NULL
);
CREATE INDEX workflows_by_created ON redrive.workflows (created_at, id);
CREATE TABLE redrive.workflow_jobs (
  job_id      text COLLATE "C" PRIMARY KEY REFERENCES redrive.jobs (id) ON DELETE CASCADE,
  workflow_id text COLLATE "C" NOT NULL REFERENCES redrive.workflows (id) ON DELETE CASCADE,
  job_key     text NOT NULL,
  position    integer NOT NULL CHECK (position >= 0),
  UNIQUE (workflow_id, position),
  UNIQUE (workflow_id, job_key)
);
CREATE TABLE redrive.job_dependencies (
  job_id            text COLLATE "C" NOT NULL REFERENCES redrive.jobs (id) ON DELETE CASCADE,
  depends_on_job_id text COLLATE "C" NOT NULL REFERENCES redrive.jobs (id) ON DELETE CASCADE,
  mode              text NOT NULL CHECK (mode IN ('all','any')),
  PRIMARY KEY (job_id, depends_on_job_id),
  CHECK (job_id <> depends_on_job_id)
);
CREATE INDEX job_dependencies_dependents ON redrive.job_dependencies (depends_on_job_id, job_id);
)sql";

namespace {

#define REDRIVE_PG_WORKFLOW_COLUMNS \
  "workflows.id, workflows.name, workflows.description, workflows.metadata, workflows.created_at"
constexpr int kWorkflowColumnCount = 5;

std::string Aggregates() {
  return ", " + workflow_status_sql::StatusCountColumns() +
         ", min(jobs.started_at), max(jobs.completed_at)";
}

constexpr char kJoinJobs[] =
    " LEFT JOIN redrive.workflow_jobs ON workflow_jobs.workflow_id = workflows.id"
    " LEFT JOIN redrive.jobs ON jobs.id = workflow_jobs.job_id";

// $1 id.
const std::string& GetSql() {
  static const std::string* sql = new std::string(
      "SELECT " REDRIVE_PG_WORKFLOW_COLUMNS + Aggregates() + " FROM redrive.workflows" + kJoinJobs +
      " WHERE workflows.id = $1 GROUP BY workflows.id");
  return *sql;
}

// $1 limit, $2 offset: a page of workflows first, then only its jobs.
const std::string& ListSql() {
  static const std::string* sql = new std::string(
      "SELECT " REDRIVE_PG_WORKFLOW_COLUMNS + Aggregates() +
      " FROM (SELECT * FROM redrive.workflows ORDER BY created_at DESC, id DESC"
      " LIMIT $1 OFFSET $2) AS workflows" +
      kJoinJobs + " GROUP BY 1, 2, 3, 4, 5 ORDER BY workflows.created_at DESC, workflows.id DESC");
  return *sql;
}

// $1 limit, $2 offset, $3 status: every workflow's status is derived.
const std::string& ListByStatusSql() {
  static const std::string* sql = new std::string(
      "SELECT " REDRIVE_PG_WORKFLOW_COLUMNS + Aggregates() + " FROM redrive.workflows" + kJoinJobs +
      " GROUP BY workflows.id HAVING (" + workflow_status_sql::DerivedStatusExpression() +
      ") = $3::text ORDER BY workflows.created_at DESC, workflows.id DESC LIMIT $1 OFFSET $2");
  return *sql;
}

// $1 workflow, $2 limit, $3 offset.
constexpr char kListJobs[] =
    "SELECT workflow_jobs.workflow_id, workflow_jobs.job_id, workflow_jobs.job_key,"
    " workflow_jobs.position, " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.workflow_jobs JOIN redrive.jobs ON jobs.id = workflow_jobs.job_id"
    " WHERE workflow_jobs.workflow_id = $1 ORDER BY workflow_jobs.position LIMIT $2 OFFSET $3";
// $1 text[] of job ids.
constexpr char kEdgesOf[] =
    "SELECT job_id, depends_on_job_id, mode FROM redrive.job_dependencies"
    " WHERE job_id = ANY($1::text[]) ORDER BY job_id, depends_on_job_id";
constexpr char kMember[] =
    "SELECT workflow_id, job_id, job_key, position FROM redrive.workflow_jobs WHERE job_id = $1";
// $1 job, $2 limit.
constexpr char kDependencies[] =
    "SELECT jobs.id, jobs.queue_name, jobs.status, job_dependencies.mode"
    " FROM redrive.job_dependencies JOIN redrive.jobs ON jobs.id = "
    "job_dependencies.depends_on_job_id"
    " WHERE job_dependencies.job_id = $1 ORDER BY jobs.id LIMIT $2";
constexpr char kDependents[] =
    "SELECT jobs.id, jobs.queue_name, jobs.status"
    " FROM redrive.job_dependencies JOIN redrive.jobs ON jobs.id = job_dependencies.job_id"
    " WHERE job_dependencies.depends_on_job_id = $1 ORDER BY job_dependencies.job_id LIMIT $2";
// $1 text[] of job ids: the mode and each dependency's status.
constexpr char kStates[] =
    "SELECT job_dependencies.job_id, job_dependencies.mode, jobs.status"
    " FROM redrive.job_dependencies JOIN redrive.jobs"
    " ON jobs.id = job_dependencies.depends_on_job_id"
    " WHERE job_dependencies.job_id = ANY($1::text[])";
// $1 job, $2 the job looked for, $3 limit. UNION keeps each job once; the
// outer LIMIT stops the walk (the CTE is evaluated as rows are asked for).
constexpr char kUpstream[] =
    "WITH RECURSIVE up(id) AS (SELECT $1::text COLLATE \"C\" UNION SELECT d.depends_on_job_id"
    " FROM redrive.job_dependencies d JOIN up ON d.job_id = up.id)"
    " SELECT id = $2::text FROM up LIMIT $3";
constexpr char kInsertWorkflow[] =
    "INSERT INTO redrive.workflows (id, name, description, metadata, created_at)"
    " VALUES ($1, $2, $3, $4, $5)";
// $1 job ids, $2 workflow, $3 keys, $4 positions.
constexpr char kInsertMembers[] =
    "INSERT INTO redrive.workflow_jobs (job_id, workflow_id, job_key, position)"
    " SELECT m.job_id, $2, m.job_key, m.position"
    " FROM unnest($1::text[], $3::text[], $4::integer[]) AS m(job_id, job_key, position)";
// $1 job ids, $2 dependency ids, $3 modes.
// Met at insert when the job depended on has completed already (the caller
// locked it: it cannot complete meanwhile).
constexpr char kInsertEdges[] =
    "INSERT INTO redrive.job_dependencies (job_id, depends_on_job_id, mode, met)"
    " SELECT e.job_id, e.dep, e.mode, coalesce(j.status = 'completed', false)"
    " FROM unnest($1::text[], $2::text[], $3::text[]) AS e(job_id, dep, mode)"
    " LEFT JOIN redrive.jobs AS j ON j.id = e.dep ON CONFLICT DO NOTHING";
}  // namespace

const char kAwaitedJobs[] =
    "SELECT DISTINCT depends_on_job_id FROM redrive.job_dependencies"
    " WHERE depends_on_job_id = ANY($1::text[]) AND NOT met";

namespace {

constexpr char kMarkMet[] =
    "UPDATE redrive.job_dependencies SET met = true WHERE depends_on_job_id = $1 AND NOT met";
// $1 job ids, $2 modes.
constexpr char kSetModes[] =
    "UPDATE redrive.job_dependencies d SET mode = m.mode"
    " FROM unnest($1::text[], $2::text[]) AS m(job_id, mode)"
    " WHERE d.job_id = m.job_id AND d.mode <> m.mode";
// $1 job. Locked in id order (two completions never deadlock on them);
// whether they are met is read by a later statement (kAllMet), which sees
// every completion's mark committed while this one waited for a lock.
constexpr char kBlockedDependents[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.jobs WHERE id IN"
    " (SELECT job_id FROM redrive.job_dependencies WHERE depends_on_job_id = $1)"
    " AND status = 'blocked' ORDER BY id FOR UPDATE";
// $1 the completed job, $2 its locked dependents: each one's mode, and
// whether none of its edges is unmet.
constexpr char kAllMet[] =
    "SELECT d.job_id, d.mode, NOT EXISTS (SELECT 1 FROM redrive.job_dependencies AS u"
    " WHERE u.job_id = d.job_id AND NOT u.met)"
    " FROM redrive.job_dependencies AS d"
    " WHERE d.depends_on_job_id = $1 AND d.job_id = ANY($2::text[])";
// $1 workflow, $2 text[] of statuses, $3 limit.
constexpr char kWorkflowJobs[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.jobs WHERE id IN"
    " (SELECT job_id FROM redrive.workflow_jobs WHERE workflow_id = $1)"
    " AND status = ANY($2::text[]) ORDER BY id LIMIT $3 FOR UPDATE";

Result<JobStatus> StatusAt(const PgResult& r, int row, int col) {
  std::optional<JobStatus> status = ParseJobStatus(r.Text(row, col));
  if (!status) return Status::Internal("unknown job status in store: " + r.String(row, col));
  return *status;
}

DependencyMode ModeAt(const PgResult& r, int row, int col) {
  return ParseDependencyMode(r.Text(row, col)).value_or(DependencyMode::kAll);
}

WorkflowView ReadView(const PgResult& r, int row) {
  WorkflowView v;
  v.workflow.id = r.String(row, 0);
  v.workflow.name = r.String(row, 1);
  v.workflow.description = r.OptString(row, 2);
  v.workflow.metadata_json = r.String(row, 3);
  v.workflow.created_at = r.Time(row, 4);
  int col = kWorkflowColumnCount;
  for (JobStatus s : kAllStatuses) v.counts.of(s) = r.Int64(row, col++);
  v.started_at = r.OptTime(row, col++);
  const std::optional<Instant> last_end = r.OptTime(row, col);
  const WorkflowStatus status = v.status();
  if (status != WorkflowStatus::kPending && status != WorkflowStatus::kRunning) {
    v.finished_at = last_end;
  }
  return v;
}

WorkflowMember ReadMember(const PgResult& r, int row) {
  return WorkflowMember{r.String(row, 0), r.String(row, 1), r.String(row, 2), r.Int(row, 3)};
}

Result<std::vector<DependencyLink>> Links(const PgResult& r, std::optional<DependencyMode>* mode) {
  std::vector<DependencyLink> out;
  for (int i = 0; i < r.rows(); ++i) {
    REDRIVE_ASSIGN_OR_RETURN(JobStatus status, StatusAt(r, i, 2));
    out.push_back({r.String(i, 0), r.String(i, 1), status});
    if (mode != nullptr) *mode = ModeAt(r, i, 3);
  }
  return out;
}

Result<std::map<std::string, DependencyState>> States(PgConnection& conn,
                                                      const std::vector<std::string>& ids) {
  std::map<std::string, DependencyState> out;
  if (ids.empty()) return out;
  PgParams p;
  p.AddTextArray(ids);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kStates, p));
  for (int i = 0; i < r.rows(); ++i) {
    DependencyState& state = out[r.String(i, 0)];
    state.mode = ModeAt(r, i, 1);
    REDRIVE_ASSIGN_OR_RETURN(JobStatus status, StatusAt(r, i, 2));
    state.statuses.push_back(status);
  }
  return out;
}

}  // namespace

Result<WorkflowView> GetWorkflow(PgConnection& conn, const std::string& id) {
  PgParams p;
  p.AddRef(id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(GetSql(), p));
  if (r.rows() == 0) return Status::NotFound("workflow " + id + " not found");
  return ReadView(r, 0);
}

Result<std::vector<WorkflowView>> ListWorkflows(PgConnection& conn, const WorkflowFilter& f) {
  PgParams p;
  p.Add(f.limit);
  p.Add(f.offset);
  if (f.status) p.Add(WorkflowStatusName(*f.status));
  REDRIVE_ASSIGN_OR_RETURN(PgResult r,
                           conn.ExecPrepared(f.status ? ListByStatusSql() : ListSql(), p));
  std::vector<WorkflowView> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadView(r, i));
  return out;
}

Result<std::vector<WorkflowJobRow>> ListWorkflowJobs(PgConnection& conn,
                                                     const std::string& workflow_id, int limit,
                                                     int offset) {
  std::vector<WorkflowJobRow> rows;
  {
    PgParams p;
    p.AddRef(workflow_id);
    p.Add(limit);
    p.Add(offset);
    REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kListJobs, p));
    for (int i = 0; i < r.rows(); ++i) {
      WorkflowJobRow row;
      row.member = ReadMember(r, i);
      REDRIVE_ASSIGN_OR_RETURN(row.job, ReadPgJob(r, i, 4));
      rows.push_back(std::move(row));
    }
  }
  if (rows.empty()) return rows;
  std::map<std::string, WorkflowJobRow*> by_id;
  std::vector<std::string> ids;
  for (WorkflowJobRow& row : rows) {
    by_id[row.job.id] = &row;
    ids.push_back(row.job.id);
  }
  PgParams p;
  p.AddTextArray(ids);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kEdgesOf, p));
  for (int i = 0; i < r.rows(); ++i) {
    WorkflowJobRow* row = by_id.at(r.String(i, 0));
    row->depends_on.push_back(r.String(i, 1));
    row->mode = ModeAt(r, i, 2);
  }
  return rows;
}

Result<std::optional<WorkflowMember>> GetWorkflowMember(PgConnection& conn,
                                                        const std::string& job_id) {
  PgParams p;
  p.AddRef(job_id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kMember, p));
  if (r.rows() == 0) return std::optional<WorkflowMember>();
  return std::optional<WorkflowMember>(ReadMember(r, 0));
}

Result<JobDependencies> GetJobDependencies(PgConnection& conn, const std::string& job_id,
                                           int limit) {
  JobDependencies out;
  PgParams p;
  p.AddRef(job_id);
  p.Add(limit);
  std::optional<DependencyMode> mode;
  {
    REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDependencies, p));
    REDRIVE_ASSIGN_OR_RETURN(out.dependencies, Links(r, &mode));
  }
  out.mode = mode.value_or(DependencyMode::kAll);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDependents, p));
  REDRIVE_ASSIGN_OR_RETURN(out.dependents, Links(r, nullptr));
  return out;
}

Result<std::optional<DependencyState>> GetDependencyState(PgConnection& conn,
                                                          const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(auto states, States(conn, {job_id}));
  auto it = states.find(job_id);
  if (it == states.end()) return std::optional<DependencyState>();
  return std::optional<DependencyState>(std::move(it->second));
}

Result<bool> DependsOnTransitively(PgConnection& conn, const std::string& job_id,
                                   const std::string& on_job_id, size_t max_jobs) {
  PgParams p;
  p.AddRef(job_id);
  p.AddRef(on_job_id);
  p.Add(static_cast<int64_t>(max_jobs));
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kUpstream, p));
  for (int i = 0; i < r.rows(); ++i) {
    if (r.Bool(i, 0)) return true;
  }
  if (static_cast<size_t>(r.rows()) >= max_jobs) {
    return Status::Conflict("the dependency graph above job " + job_id +
                            " is too large to check for a cycle (more than " +
                            std::to_string(max_jobs) + " jobs)");
  }
  return false;
}

Status InsertWorkflow(PgConnection& conn, const Workflow& workflow,
                      const std::vector<WorkflowMember>& members) {
  {
    PgParams p;
    p.AddRef(workflow.id);
    p.AddRef(workflow.name);
    p.AddRef(workflow.description);
    p.AddRef(workflow.metadata_json);
    p.Add(workflow.created_at);
    REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kInsertWorkflow, p).status());
  }
  if (members.empty()) return Status::Ok();
  std::vector<std::string> job_ids, keys, positions;
  for (const WorkflowMember& m : members) {
    job_ids.push_back(m.job_id);
    keys.push_back(m.key);
    positions.push_back(std::to_string(m.position));
  }
  PgParams p;
  p.AddTextArray(job_ids);
  p.AddRef(workflow.id);
  p.AddTextArray(keys);
  p.AddTextArray(positions);
  return conn.ExecPrepared(kInsertMembers, p).status();
}

Result<long long> InsertDependencies(PgConnection& conn, const std::vector<JobDependency>& edges) {
  if (edges.empty()) return 0;
  std::vector<std::string> job_ids, dep_ids, modes;
  std::map<std::string, DependencyMode> mode_of;
  for (const JobDependency& e : edges) {
    job_ids.push_back(e.job_id);
    dep_ids.push_back(e.depends_on_job_id);
    modes.push_back(DependencyModeName(e.mode));
    mode_of[e.job_id] = e.mode;
  }
  long long added = 0;
  {
    PgParams p;
    p.AddTextArray(job_ids);
    p.AddTextArray(dep_ids);
    p.AddTextArray(modes);
    REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kInsertEdges, p));
    added = r.affected();
  }
  std::vector<std::string> ids, job_modes;
  for (const auto& [id, mode] : mode_of) {
    ids.push_back(id);
    job_modes.push_back(DependencyModeName(mode));
  }
  PgParams p;
  p.AddTextArray(ids);
  p.AddTextArray(job_modes);
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kSetModes, p).status());
  return added;
}

Result<long long> MarkDependencyMet(PgConnection& conn, const std::string& job_id) {
  PgParams p;
  p.AddRef(job_id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kMarkMet, p));
  return r.affected();
}

Result<std::vector<BlockedDependent>> SelectBlockedDependents(PgConnection& conn,
                                                              const std::string& job_id) {
  std::vector<Job> jobs;
  {
    PgParams p;
    p.AddRef(job_id);
    REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kBlockedDependents, p));
    REDRIVE_ASSIGN_OR_RETURN(jobs, PgJobs(r));
  }
  std::vector<BlockedDependent> out;
  if (jobs.empty()) return out;
  std::vector<std::string> ids;
  for (const Job& j : jobs) ids.push_back(j.id);
  PgParams p;
  p.AddRef(job_id);
  p.AddTextArray(ids);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kAllMet, p));
  std::map<std::string, std::pair<DependencyMode, bool>> met;
  for (int i = 0; i < r.rows(); ++i) met[r.String(i, 0)] = {ModeAt(r, i, 1), r.Bool(i, 2)};
  out.reserve(jobs.size());
  for (Job& j : jobs) {
    auto it = met.find(j.id);
    if (it == met.end()) return Status::Internal("dependent " + j.id + " lost its edge");
    out.push_back({std::move(j), it->second.first, it->second.second});
  }
  return out;
}

Result<std::vector<Job>> SelectWorkflowJobs(PgConnection& conn, const std::string& workflow_id,
                                            const std::vector<JobStatus>& statuses, int limit) {
  std::vector<std::string> names;
  for (JobStatus s : statuses) names.push_back(JobStatusName(s));
  PgParams p;
  p.AddRef(workflow_id);
  p.AddTextArray(names);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kWorkflowJobs, p));
  return PgJobs(r);
}

}  // namespace redrive::store::postgres::workflow_sql
