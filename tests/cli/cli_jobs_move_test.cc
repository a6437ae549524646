// `redrive jobs move` against a real server: a dry run counts, the move runs
// as an operation followed to its end, each job keeps its status in the new
// queue, a processing job stays; bad flags exit 2 before any request.
#include "cli/support/cli_fixture.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;

class CliJobsMoveTest : public CliTest {
 protected:
  std::string QueueOf(const std::string& id) {
    return std::string(Job(id).at("queue_name").as_string());
  }
};

TEST_F(CliJobsMoveTest, MovesWaitingAndDeadJobsAndLeavesAHeldOne) {
  const std::string from = NewQueue("move");
  const std::string to = NewQueue("move-to");
  const std::string dead = MakeDeadJob(from, "boom", true);
  const std::string held = Enqueue(from);
  ASSERT_EQ(Claim(from, "w").size(), 1u);  // `held`: processing
  const std::string a = Enqueue(from);
  const std::string b = Enqueue(from);

  EXPECT_EQ(Cli({"jobs", "move", "--queue", from}).exit_code, 2);  // --to is required
  EXPECT_EQ(Cli({"jobs", "move", "--queue", from, "--to", from}).exit_code, 2);
  EXPECT_EQ(Cli({"jobs", "move", "--queue", from, "--to", to, "--status", "processing"}).exit_code,
            2);

  auto dry = Cli({"jobs", "move", "--queue", from, "--to", to, "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("would move 3 jobs from " + from + " to " + to));
  EXPECT_EQ(QueueOf(a), from);

  auto pending = Cli({"jobs", "move", "--queue", from, "--to", to, "--status", "pending"});
  ASSERT_EQ(pending.exit_code, 0) << pending.err;
  EXPECT_THAT(pending.out, HasSubstr("completed: moved 2 of 2"));
  EXPECT_EQ(QueueOf(a), to);
  EXPECT_EQ(Job(b).at("status"), "pending");
  EXPECT_EQ(QueueOf(dead), from);

  auto rest = Cli({"jobs", "move", "--queue", from, "--to", to});
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  EXPECT_THAT(rest.out, HasSubstr("completed: moved 1 of 1"));
  EXPECT_EQ(QueueOf(dead), to);
  EXPECT_EQ(Job(dead).at("status"), "deadletter");
  EXPECT_EQ(QueueOf(held), from);
  EXPECT_EQ(Job(held).at("status"), "processing");
  const std::vector<std::string> history = HistoryTypes(a);
  EXPECT_EQ(history.back(), "moved");
}

}  // namespace
}  // namespace redrive::e2e
