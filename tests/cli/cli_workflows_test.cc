// `redrive workflows ...` against a real server: list, show (the facts and
// the tree of a fan-out/fan-in workflow), cancel and retry (refused off a
// terminal without --yes), and an unknown id. Workflows are made over HTTP,
// independently of the SDK the CLI is built on.
#include <map>
#include <sstream>

#include "cli/support/cli_fixture.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

json::object Step(const std::string& key, const std::string& queue,
                  std::vector<std::string> depends_on = {}, json::object extra = {}) {
  json::object job{{"key", key}, {"queue_name", queue}, {"payload", {{"step", key}}}};
  json::array deps;
  for (const std::string& d : depends_on) deps.push_back(json::string(d));
  if (!deps.empty()) job["depends_on"] = std::move(deps);
  for (const auto& [k, v] : extra) job[k] = v;
  return job;
}

// The first line of `text` holding `needle`, or "".
std::string LineWith(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return "";
}

class CliWorkflowsTest : public CliTest {
 protected:
  // Creates a workflow over HTTP; returns its id and remembers its job ids by key.
  std::string CreateWorkflow(const std::string& name, json::array jobs) {
    auto r = Post("/workflows", json::object{{"name", name}, {"jobs", std::move(jobs)}});
    EXPECT_EQ(r.status, 201) << r.raw.body;
    if (r.status != 201) return "";
    for (const auto& j : r.body.at("job_ids").as_array()) {
      job_id_[std::string(j.at("key").as_string())] = std::string(j.at("job_id").as_string());
    }
    return std::string(r.body.at("workflow_id").as_string());
  }

  std::string StatusOf(const std::string& id) {
    auto r = Get("/workflows/" + id);
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.status == 200 ? std::string(r.body.at("status").as_string()) : "";
  }

  std::map<std::string, std::string> job_id_;
};

TEST_F(CliWorkflowsTest, ShowDrawsAFanOutFanInAsATree) {
  const std::string q = NewQueue("cli-wf");
  const std::string id = CreateWorkflow(
      "nightly etl", {Step("extract", q), Step("clean", q, {"extract"}),
                      Step("enrich", q, {"extract"}), Step("load", q, {"clean", "enrich"})});
  ASSERT_FALSE(id.empty());

  auto show = Cli({"workflows", "show", id});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(LineWith(show.out, "Workflow:"), HasSubstr(id));
  EXPECT_THAT(LineWith(show.out, "Name:"), HasSubstr("nightly etl"));
  EXPECT_THAT(LineWith(show.out, "Status:"), HasSubstr("pending"));
  EXPECT_THAT(LineWith(show.out, "Progress:"), HasSubstr("0 of 4 jobs completed (0%), 0 failed"));
  EXPECT_THAT(LineWith(show.out, "Jobs:"), HasSubstr("pending 1, blocked 3"));
  // The tree: each job under what it waits for, with its status and id.
  const std::string root = LineWith(show.out, job_id_["extract"]);
  EXPECT_THAT(root, HasSubstr("extract"));
  EXPECT_THAT(root, HasSubstr("pending"));
  EXPECT_EQ(root.rfind("extract", 0), 0u) << "a root starts the line: " << root;
  EXPECT_THAT(LineWith(show.out, "├─ clean"), HasSubstr(job_id_["clean"]));
  const std::string load = LineWith(show.out, "│  └─ load");
  EXPECT_THAT(load, HasSubstr("blocked"));
  EXPECT_THAT(load, HasSubstr(job_id_["load"]));
  EXPECT_THAT(load, Not(HasSubstr("*")));
  EXPECT_THAT(LineWith(show.out, "└─ enrich"), HasSubstr(job_id_["enrich"]));
  // load again under enrich, marked, and the mark explained.
  const std::string again = LineWith(show.out, "   └─ load *");
  EXPECT_THAT(again, HasSubstr(job_id_["load"]));
  EXPECT_THAT(show.out, HasSubstr("* shown above already"));
  // Depth first, in definition order: clean's subtree before enrich.
  EXPECT_LT(show.out.find("├─ clean"), show.out.find("│  └─ load"));
  EXPECT_LT(show.out.find("│  └─ load"), show.out.find("└─ enrich"));

  auto json = Cli({"workflows", "show", id, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto shown = ParseJson(json.out).as_object();
  EXPECT_EQ(shown.at("workflow").at("id"), id.c_str());
  EXPECT_EQ(shown.at("workflow").at("total_jobs"), 4);
  EXPECT_EQ(shown.at("workflow").at("counts").at("blocked"), 3);
  const auto& jobs = shown.at("jobs").as_array();
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[3].at("key"), "load");
  EXPECT_EQ(jobs[3].at("status"), "blocked");
  EXPECT_EQ(jobs[3].at("depends_on").as_array().size(), 2u);
  EXPECT_EQ(jobs[0].at("payload").at("step"), "extract");
  // get is show.
  EXPECT_EQ(Cli({"workflows", "get", id}).exit_code, 0);
}

TEST_F(CliWorkflowsTest, ListFiltersByStatus) {
  const std::string q = NewQueue("cli-wf");
  const std::string id = CreateWorkflow("listed flow", {Step("only", q)});
  ASSERT_FALSE(id.empty());

  auto list = Cli({"workflows", "list", "--limit", "100"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("DONE"));
  const std::string row = LineWith(list.out, id);
  EXPECT_THAT(row, HasSubstr("listed flow"));
  EXPECT_THAT(row, HasSubstr("pending"));
  EXPECT_THAT(row, HasSubstr("0/1"));

  auto pending = Cli({"workflows", "list", "--status", "pending", "--all", "--json"});
  ASSERT_EQ(pending.exit_code, 0) << pending.err;
  bool found = false;
  const json::value listed = ParseJson(pending.out);
  for (const auto& w : listed.as_array()) {
    EXPECT_EQ(w.at("status"), "pending");
    found = found || w.at("id") == id.c_str();
  }
  EXPECT_TRUE(found);
  auto failed = Cli({"workflows", "list", "--status", "failed", "--all"});
  ASSERT_EQ(failed.exit_code, 0) << failed.err;
  EXPECT_THAT(failed.out, Not(HasSubstr(id)));

  // Two workflows at least, whichever tests ran before on this server.
  ASSERT_FALSE(CreateWorkflow("second flow", {Step("only", q)}).empty());
  auto one = Cli({"workflows", "list", "--limit", "1"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_THAT(one.err, HasSubstr("showing 1"));
  auto bad = Cli({"workflows", "list", "--status", "stuck"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("not a workflow status"));
}

TEST_F(CliWorkflowsTest, CancelAsksForYesOffATerminal) {
  const std::string q = NewQueue("cli-wf");
  const std::string id = CreateWorkflow("to cancel", {Step("a", q), Step("b", q, {"a"})});
  ASSERT_FALSE(id.empty());

  auto refused = Cli({"workflows", "cancel", id});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("pass --yes"));
  EXPECT_EQ(StatusOf(id), "pending");

  auto cancelled = Cli({"workflows", "cancel", id, "--yes"});
  ASSERT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_THAT(cancelled.out, HasSubstr("cancelled workflow " + id));
  EXPECT_THAT(LineWith(cancelled.out, "Status:"), HasSubstr("cancelled"));
  EXPECT_THAT(LineWith(cancelled.out, "Jobs:"), HasSubstr("cancelled 2"));
  EXPECT_EQ(Job(job_id_["b"]).at("status"), "cancelled");

  auto again = Cli({"workflows", "cancel", id, "-y"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("CONFLICT"));
  EXPECT_THAT(again.err, HasSubstr("no unfinished job"));
}

TEST_F(CliWorkflowsTest, RetryRunsADeadLetteredWorkflowAgain) {
  const std::string q = NewQueue("cli-wf");
  const std::string id = CreateWorkflow(
      "flaky", {Step("root", q, {}, {{"max_retries", 0}}), Step("after", q, {"root"})});
  ASSERT_FALSE(id.empty());
  auto claimed = Claim(q, "w1");
  ASSERT_EQ(claimed.size(), 1u);
  auto fail =
      Post("/jobs/" + job_id_["root"] + "/fail",
           json::object{
               {"worker_id", "w1"}, {"lease_id", claimed[0].at("lease_id")}, {"error", "boom"}});
  ASSERT_EQ(fail.status, 200) << fail.raw.body;
  ASSERT_EQ(StatusOf(id), "failed");

  auto show = Cli({"workflows", "show", id});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(LineWith(show.out, job_id_["root"]), HasSubstr("deadletter"));
  EXPECT_THAT(LineWith(show.out, "└─ after"), HasSubstr("blocked"));

  EXPECT_EQ(Cli({"workflows", "retry", id}).exit_code, 2);
  EXPECT_EQ(StatusOf(id), "failed");
  auto retried = Cli({"workflows", "retry", id, "--yes", "--json"});
  ASSERT_EQ(retried.exit_code, 0) << retried.err;
  const auto w = ParseJson(retried.out).as_object();
  EXPECT_EQ(w.at("id"), id.c_str());
  EXPECT_EQ(w.at("status"), "pending");
  EXPECT_EQ(w.at("failed_jobs"), 0);
  EXPECT_EQ(Job(job_id_["root"]).at("status"), "pending");
  EXPECT_EQ(Job(job_id_["after"]).at("status"), "blocked");

  // A workflow that has not failed is not retried.
  auto again = Cli({"workflows", "retry", id, "--yes"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("CONFLICT"));
  EXPECT_THAT(again.err, HasSubstr("only a failed or cancelled workflow is retried"));
}

TEST_F(CliWorkflowsTest, AnUnknownIdIsRefusedWithTheServersMessage) {
  const std::string id = "0193a0c4-5e10-7b2a-9d4e-3f1c2b8a7d60";
  for (std::vector<std::string> args : {std::vector<std::string>{"workflows", "show", id},
                                        {"workflows", "cancel", id, "--yes"},
                                        {"workflows", "retry", id, "--yes"},
                                        {"workflows", "show", id, "--json"}}) {
    auto r = Cli(args);
    EXPECT_EQ(r.exit_code, 1) << args[1];
    EXPECT_THAT(r.err, HasSubstr("redrive: NOT_FOUND: workflow " + id + " not found")) << args[1];
    EXPECT_EQ(r.out, "") << args[1];
  }
  EXPECT_EQ(Cli({"workflows", "show"}).exit_code, 2);
  auto typo = Cli({"workflows", "shw", id});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("did you mean 'workflows show'"));
}

}  // namespace
}  // namespace redrive::e2e
