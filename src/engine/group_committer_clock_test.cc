// Requests that the GroupCommitter runs in one transaction each read the
// clock when they run: the jobs that two batch enqueues of one group create
// do not share one created_at, so the stores' orders of ties (insertion on
// SQLite, id on PostgreSQL) agree for them (core/job_cursor.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <memory>
#include <string>

#include "core/clock.h"
#include "core/random.h"
#include "engine/group_committer.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine {
namespace {

TEST(GroupCommitterClockTest, EachRequestOfAGroupRunsAtItsOwnTime) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("redrive-gc-clock-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto store = store::SqliteStore::Open((dir / "redrive.db").string());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Migrate().ok());
  ManualClock clock;
  SystemRandom random{7};
  auto committer = std::make_unique<GroupCommitter>(**store, clock, random, 2048, nullptr, nullptr);
  committer->Start();

  // The first request holds the writer until the next two wait together.
  std::promise<void> both_queued;
  std::shared_future<void> queued = both_queued.get_future().share();
  std::promise<Status> first_done, second_done, third_done;
  Instant second_now{}, third_now{};
  committer->Submit({[queued](store::WriteTx&, TxContext&) -> Status {
                       queued.wait();
                       return Status::Ok();
                     },
                     [&](Status s) { first_done.set_value(std::move(s)); }});
  committer->Submit({[&](store::WriteTx&, TxContext& ctx) -> Status {
                       second_now = ctx.now;
                       clock.Advance(Micros(5));  // the request takes a while
                       return Status::Ok();
                     },
                     [&](Status s) { second_done.set_value(std::move(s)); }});
  committer->Submit({[&](store::WriteTx&, TxContext& ctx) -> Status {
                       third_now = ctx.now;
                       return Status::Ok();
                     },
                     [&](Status s) { third_done.set_value(std::move(s)); }});
  both_queued.set_value();
  EXPECT_TRUE(first_done.get_future().get().ok());
  EXPECT_TRUE(second_done.get_future().get().ok());
  EXPECT_TRUE(third_done.get_future().get().ok());
  EXPECT_EQ(third_now - second_now, Micros(5));

  committer.reset();
  store->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace redrive::engine
