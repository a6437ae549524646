#include "store/sqlite/workflow_sql.h"

#include <map>

#include "core/tags_json.h"
#include "store/sqlite/job_columns.h"
#include "store/sqlite/query_util.h"
#include "store/sqlite/row_mapping.h"
#include "store/sqlite/statement.h"
#include "store/workflow_status_sql.h"

namespace redrive::store::sqlite::workflow_sql {

// Version 17: whether each dependency is met (its job completed), so that a
// completion asks its dependents "is any of yours unmet?" with one probe of
// job_dependencies_unmet instead of reading every dependency's status (a
// fan-in of N jobs cost O(N) per completion, O(N²) in all). Existing edges
// on completed jobs are met.
const char kMetSchema[] = R"sql(
ALTER TABLE job_dependencies ADD COLUMN met INTEGER NOT NULL DEFAULT 0;
UPDATE job_dependencies SET met = 1
 WHERE depends_on_job_id IN (SELECT id FROM jobs WHERE status = 'completed');
CREATE INDEX job_dependencies_unmet ON job_dependencies (job_id) WHERE met = 0;
)sql";

// Version 15: workflows and job dependencies (core/workflow.h). A workflow
// row holds only what was given at creation; its status and counts are read
// from its jobs. A job's edges go with it (ON DELETE CASCADE: retention
// removes a finished dependency, which satisfied or failed its dependents
// already). job_dependencies_dependents finds what waits for a job that
// completes. The new status `blocked` widens the CHECK of jobs.status the
// way version 8 did: the stored CREATE text is edited, which leaves every
// stored row valid; the CREATEs below change the schema cookie, so every
// other connection reloads the edited text.
const char kSchema[] = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, '''cancelled'',''quarantined'')',
                     '''cancelled'',''quarantined'',''blocked'')')
 WHERE type = 'table' AND name = 'jobs';
PRAGMA writable_schema = RESET;
CREATE TABLE workflows (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  description TEXT,
  metadata    TEXT NOT NULL,
  created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX workflows_by_created ON workflows (created_at, id);
CREATE TABLE workflow_jobs (
  job_id      TEXT PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
  job_key     TEXT NOT NULL,
  position    INTEGER NOT NULL CHECK (position >= 0),
  UNIQUE (workflow_id, position),
  UNIQUE (workflow_id, job_key)
) STRICT;
CREATE TABLE job_dependencies (
  job_id            TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  depends_on_job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  mode              TEXT NOT NULL CHECK (mode IN ('all','any')),
  PRIMARY KEY (job_id, depends_on_job_id),
  CHECK (job_id <> depends_on_job_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX job_dependencies_dependents ON job_dependencies (depends_on_job_id, job_id);
)sql";

namespace {

#define REDRIVE_WORKFLOW_COLUMNS \
  "workflows.id, workflows.name, workflows.description, workflows.metadata, workflows.created_at"
constexpr int kWorkflowColumnCount = 5;

// A workflow, its counts by status, the earliest start and latest end of its jobs.
std::string ViewSelect() {
  return "SELECT " REDRIVE_WORKFLOW_COLUMNS ", " + workflow_status_sql::StatusCountColumns() +
         ", min(jobs.started_at), max(jobs.completed_at)"
         " FROM workflows LEFT JOIN workflow_jobs ON workflow_jobs.workflow_id = workflows.id"
         " LEFT JOIN jobs ON jobs.id = workflow_jobs.job_id";
}

const std::string& GetSql() {
  static const std::string* sql =
      new std::string(ViewSelect() + " WHERE workflows.id = ?1 GROUP BY workflows.id");
  return *sql;
}

// Without a status filter a page of workflows is taken first and only its
// jobs are read; with one, every workflow's status must be derived.
const std::string& ListSql() {
  static const std::string* sql = new std::string(
      "SELECT " REDRIVE_WORKFLOW_COLUMNS ", " + workflow_status_sql::StatusCountColumns() +
      ", min(jobs.started_at), max(jobs.completed_at) FROM (SELECT * FROM workflows"
      " ORDER BY created_at DESC, id DESC LIMIT ?1 OFFSET ?2) AS workflows"
      " LEFT JOIN workflow_jobs ON workflow_jobs.workflow_id = workflows.id"
      " LEFT JOIN jobs ON jobs.id = workflow_jobs.job_id"
      " GROUP BY workflows.id ORDER BY workflows.created_at DESC, workflows.id DESC");
  return *sql;
}

const std::string& ListByStatusSql() {
  static const std::string* sql = new std::string(
      ViewSelect() + " GROUP BY workflows.id HAVING (" +
      workflow_status_sql::DerivedStatusExpression() +
      ") = ?3 ORDER BY workflows.created_at DESC, workflows.id DESC LIMIT ?1 OFFSET ?2");
  return *sql;
}

// Laid out by hand: clang-format breaks the macros that splice SQL
// (job_columns.h) as if they were calls.
// clang-format off
constexpr char kListJobs[] =
    "SELECT workflow_jobs.workflow_id, id_text(workflow_jobs.job_id), workflow_jobs.job_key,"
    " workflow_jobs.position, " REDRIVE_JOB_COLUMNS
    " FROM workflow_jobs JOIN jobs ON jobs.id = workflow_jobs.job_id"
    " WHERE workflow_jobs.workflow_id = ?1 ORDER BY workflow_jobs.position LIMIT ?2 OFFSET ?3";
// ?1: a JSON array of job ids.
constexpr char kEdgesOf[] =
    "SELECT id_text(job_id), id_text(depends_on_job_id), mode FROM job_dependencies"
    " WHERE job_id IN (SELECT " REDRIVE_JOB_ID_OF("value") " FROM json_each(?1))"
    " ORDER BY job_id, depends_on_job_id";
constexpr char kMember[] =
    "SELECT workflow_id, id_text(job_id), job_key, position FROM workflow_jobs"
    " WHERE job_id = " REDRIVE_JOB_ID_OF("?1");
constexpr char kDependencies[] =
    "SELECT " REDRIVE_JOB_ID ", " REDRIVE_JOB_QUEUE ", jobs.status, job_dependencies.mode"
    " FROM job_dependencies JOIN jobs ON jobs.id = job_dependencies.depends_on_job_id"
    " WHERE job_dependencies.job_id = " REDRIVE_JOB_ID_OF("?1") " ORDER BY jobs.id LIMIT ?2";
constexpr char kDependents[] =
    "SELECT " REDRIVE_JOB_ID ", " REDRIVE_JOB_QUEUE ", jobs.status"
    " FROM job_dependencies JOIN jobs ON jobs.id = job_dependencies.job_id"
    " WHERE job_dependencies.depends_on_job_id = " REDRIVE_JOB_ID_OF("?1")
    " ORDER BY job_dependencies.job_id LIMIT ?2";
// ?1: a JSON array of job ids. The mode and each dependency's status.
constexpr char kStates[] =
    "SELECT id_text(job_dependencies.job_id), job_dependencies.mode, jobs.status"
    " FROM job_dependencies JOIN jobs ON jobs.id = job_dependencies.depends_on_job_id"
    " WHERE job_dependencies.job_id IN (SELECT " REDRIVE_JOB_ID_OF("value") " FROM json_each(?1))";
// Everything `?1` waits for, directly or not; UNION keeps each job once, so
// it ends on any graph, and the LIMIT bounds the walk.
constexpr char kUpstream[] =
    "WITH RECURSIVE up(id) AS (SELECT " REDRIVE_JOB_ID_OF("?1")
    " UNION SELECT job_dependencies.depends_on_job_id"
    " FROM job_dependencies JOIN up ON job_dependencies.job_id = up.id LIMIT ?3)"
    " SELECT count(*), count(CASE WHEN id = " REDRIVE_JOB_ID_OF("?2") " THEN 1 END) FROM up";
constexpr char kInsertWorkflow[] =
    "INSERT INTO workflows (id, name, description, metadata, created_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";
constexpr char kInsertMember[] =
    "INSERT INTO workflow_jobs (job_id, workflow_id, job_key, position)"
    " VALUES (" REDRIVE_JOB_ID_OF("?1") ", ?2, ?3, ?4)";
// Met at insert when the job depended on has completed already (the caller
// locked it: it cannot complete meanwhile). "WHERE true" tells SQLite's
// parser the ON CONFLICT is the insert's.
constexpr char kInsertEdge[] =
    "INSERT INTO job_dependencies (job_id, depends_on_job_id, mode, met)"
    " SELECT " REDRIVE_JOB_ID_OF("?1") ", " REDRIVE_JOB_ID_OF("?2") ", ?3,"
    " coalesce((SELECT status = 'completed' FROM jobs WHERE id = " REDRIVE_JOB_ID_OF("?2") "), 0)"
    " WHERE true ON CONFLICT DO NOTHING";
constexpr char kMarkMet[] =
    "UPDATE job_dependencies SET met = 1"
    " WHERE depends_on_job_id = " REDRIVE_JOB_ID_OF("?1") " AND met = 0";
constexpr char kSetMode[] =
    "UPDATE job_dependencies SET mode = ?2"
    " WHERE job_id = " REDRIVE_JOB_ID_OF("?1") " AND mode <> ?2";
// Each dependent with its mode and whether none of its edges is unmet.
constexpr char kBlockedDependents[] =
    "SELECT " REDRIVE_JOB_COLUMNS ", d.mode,"
    " NOT EXISTS (SELECT 1 FROM job_dependencies AS u WHERE u.job_id = jobs.id AND u.met = 0)"
    " FROM job_dependencies AS d JOIN jobs ON jobs.id = d.job_id"
    " WHERE d.depends_on_job_id = " REDRIVE_JOB_ID_OF("?1")
    " AND jobs.status = 'blocked' ORDER BY jobs.id";
// ?2: a JSON array of status names.
constexpr char kWorkflowJobs[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM jobs WHERE id IN"
    " (SELECT job_id FROM workflow_jobs WHERE workflow_id = ?1)"
    " AND status IN (SELECT value FROM json_each(?2)) ORDER BY id LIMIT ?3";
// clang-format on

Result<JobStatus> StatusAt(const Statement& s, int col) {
  std::optional<JobStatus> status = ParseJobStatus(s.Text(col));
  if (!status) return Status::Internal("unknown job status in store: " + s.String(col));
  return *status;
}

DependencyMode ModeAt(const Statement& s, int col) {
  return ParseDependencyMode(s.Text(col)).value_or(DependencyMode::kAll);
}

WorkflowView ReadView(const Statement& s) {
  WorkflowView v;
  v.workflow.id = s.String(0);
  v.workflow.name = s.String(1);
  v.workflow.description = s.OptString(2);
  v.workflow.metadata_json = s.String(3);
  v.workflow.created_at = s.Time(4);
  int col = kWorkflowColumnCount;
  for (JobStatus st : kAllStatuses) v.counts.of(st) = s.Int64(col++);
  v.started_at = s.OptTime(col++);
  const std::optional<Instant> last_end = s.OptTime(col);
  const WorkflowStatus status = v.status();
  if (status != WorkflowStatus::kPending && status != WorkflowStatus::kRunning) {
    v.finished_at = last_end;
  }
  return v;
}

WorkflowMember ReadMember(const Statement& s) {
  return WorkflowMember{s.String(0), s.String(1), s.String(2), s.Int(3)};
}

// The dependency state of each of `ids` that has dependencies.
Result<std::map<std::string, DependencyState>> States(Connection& conn,
                                                      const std::vector<std::string>& ids) {
  std::map<std::string, DependencyState> out;
  if (ids.empty()) return out;
  const std::string ids_json = EncodeStringArrayJson(ids);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kStates));
  stmt.Bind(1, ids_json);
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return out;
    DependencyState& state = out[stmt.String(0)];
    state.mode = ModeAt(stmt, 1);
    REDRIVE_ASSIGN_OR_RETURN(JobStatus status, StatusAt(stmt, 2));
    state.statuses.push_back(status);
  }
}

Result<std::vector<DependencyLink>> Links(Statement& stmt, std::optional<DependencyMode>* mode) {
  std::vector<DependencyLink> out;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return out;
    REDRIVE_ASSIGN_OR_RETURN(JobStatus status, StatusAt(stmt, 2));
    out.push_back({stmt.String(0), stmt.String(1), status});
    if (mode != nullptr) *mode = ModeAt(stmt, 3);
  }
}

}  // namespace

Result<WorkflowView> GetWorkflow(Connection& conn, const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(GetSql()));
  stmt.Bind(1, id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::NotFound("workflow " + id + " not found");
  return ReadView(stmt);
}

Result<std::vector<WorkflowView>> ListWorkflows(Connection& conn, const WorkflowFilter& f) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(f.status ? ListByStatusSql() : ListSql()));
  stmt.Bind(1, f.limit);
  stmt.Bind(2, f.offset);
  if (f.status) stmt.Bind(3, WorkflowStatusName(*f.status));
  return CollectRows<WorkflowView>(stmt, ReadView);
}

Result<std::vector<WorkflowJobRow>> ListWorkflowJobs(Connection& conn,
                                                     const std::string& workflow_id, int limit,
                                                     int offset) {
  std::vector<WorkflowJobRow> rows;
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kListJobs));
    stmt.Bind(1, workflow_id);
    stmt.Bind(2, limit);
    stmt.Bind(3, offset);
    while (true) {
      REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      WorkflowJobRow r;
      r.member = ReadMember(stmt);
      REDRIVE_ASSIGN_OR_RETURN(r.job, ReadJob(stmt, 4));
      rows.push_back(std::move(r));
    }
  }
  if (rows.empty()) return rows;
  std::map<std::string, WorkflowJobRow*> by_id;
  std::vector<std::string> ids;
  for (WorkflowJobRow& r : rows) {
    by_id[r.job.id] = &r;
    ids.push_back(r.job.id);
  }
  const std::string ids_json = EncodeStringArrayJson(ids);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kEdgesOf));
  stmt.Bind(1, ids_json);
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return rows;
    WorkflowJobRow* r = by_id.at(stmt.String(0));
    r->depends_on.push_back(stmt.String(1));
    r->mode = ModeAt(stmt, 2);
  }
}

Result<std::optional<WorkflowMember>> GetWorkflowMember(Connection& conn,
                                                        const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kMember));
  stmt.Bind(1, job_id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<WorkflowMember>();
  return std::optional<WorkflowMember>(ReadMember(stmt));
}

Result<JobDependencies> GetJobDependencies(Connection& conn, const std::string& job_id, int limit) {
  JobDependencies out;
  std::optional<DependencyMode> mode;
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDependencies));
    stmt.Bind(1, job_id);
    stmt.Bind(2, limit);
    REDRIVE_ASSIGN_OR_RETURN(out.dependencies, Links(stmt, &mode));
  }
  out.mode = mode.value_or(DependencyMode::kAll);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDependents));
  stmt.Bind(1, job_id);
  stmt.Bind(2, limit);
  REDRIVE_ASSIGN_OR_RETURN(out.dependents, Links(stmt, nullptr));
  return out;
}

Result<std::optional<DependencyState>> GetDependencyState(Connection& conn,
                                                          const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(auto states, States(conn, {job_id}));
  auto it = states.find(job_id);
  if (it == states.end()) return std::optional<DependencyState>();
  return std::optional<DependencyState>(std::move(it->second));
}

Result<bool> DependsOnTransitively(Connection& conn, const std::string& job_id,
                                   const std::string& on_job_id, size_t max_jobs) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kUpstream));
  stmt.Bind(1, job_id);
  stmt.Bind(2, on_job_id);
  stmt.Bind(3, static_cast<int64_t>(max_jobs));
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return false;
  if (stmt.Int64(1) > 0) return true;
  // A walk that reached the LIMIT may have stopped early.
  if (stmt.Int64(0) >= static_cast<int64_t>(max_jobs)) {
    return Status::Conflict("the dependency graph above job " + job_id +
                            " is too large to check for a cycle (more than " +
                            std::to_string(max_jobs) + " jobs)");
  }
  return false;
}

Status InsertWorkflow(Connection& conn, const Workflow& workflow,
                      const std::vector<WorkflowMember>& members) {
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsertWorkflow));
    stmt.Bind(1, workflow.id);
    stmt.Bind(2, workflow.name);
    stmt.Bind(3, workflow.description);
    stmt.Bind(4, workflow.metadata_json);
    stmt.Bind(5, workflow.created_at);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  for (const WorkflowMember& m : members) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsertMember));
    stmt.Bind(1, m.job_id);
    stmt.Bind(2, workflow.id);
    stmt.Bind(3, m.key);
    stmt.Bind(4, m.position);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  return Status::Ok();
}

Result<long long> InsertDependencies(Connection& conn, const std::vector<JobDependency>& edges) {
  long long added = 0;
  std::map<std::string, DependencyMode> modes;
  for (const JobDependency& e : edges) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsertEdge));
    stmt.Bind(1, e.job_id);
    stmt.Bind(2, e.depends_on_job_id);
    stmt.Bind(3, DependencyModeName(e.mode));
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
    added += stmt.Changes();
    modes[e.job_id] = e.mode;
  }
  for (const auto& [job_id, mode] : modes) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSetMode));
    stmt.Bind(1, job_id);
    stmt.Bind(2, DependencyModeName(mode));
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  return added;
}

Result<long long> MarkDependencyMet(Connection& conn, const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kMarkMet));
  stmt.Bind(1, job_id);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

Result<std::vector<BlockedDependent>> SelectBlockedDependents(Connection& conn,
                                                              const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kBlockedDependents));
  stmt.Bind(1, job_id);
  std::vector<BlockedDependent> out;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return out;
    BlockedDependent d;
    REDRIVE_ASSIGN_OR_RETURN(d.job, ReadJob(stmt));
    d.mode = ModeAt(stmt, kJobColumnCount);
    d.all_met = stmt.Int(kJobColumnCount + 1) != 0;
    out.push_back(std::move(d));
  }
}

Result<std::vector<Job>> SelectWorkflowJobs(Connection& conn, const std::string& workflow_id,
                                            const std::vector<JobStatus>& statuses, int limit) {
  std::vector<std::string> names;
  for (JobStatus s : statuses) names.push_back(JobStatusName(s));
  const std::string names_json = EncodeStringArrayJson(names);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kWorkflowJobs));
  stmt.Bind(1, workflow_id);
  stmt.Bind(2, names_json);
  stmt.Bind(3, limit);
  return CollectJobs(stmt);
}

}  // namespace redrive::store::sqlite::workflow_sql
