// One server per SQLite file: the second holder is refused with a message
// naming the file and the holder; the lock goes with its holder.
#include "store/sqlite/server_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store {
namespace {

using sqlite::ServerLock;

TEST(ServerLockTest, SecondHolderIsRefusedUntilTheFirstLetsGo) {
  sqlite::TempDirForTest dir;
  const std::string db = dir.File("redrive.db");
  auto first = ServerLock::Acquire(db);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)->lock_path(), db + ".lock");

  auto second = ServerLock::Acquire(db);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kUnavailable);
  const std::string& message = second.status().message();
  EXPECT_NE(message.find("another redrive server"), std::string::npos) << message;
  EXPECT_NE(message.find(db + ".lock"), std::string::npos) << message;
  EXPECT_NE(message.find("pid " + std::to_string(getpid())), std::string::npos) << message;

  first->reset();
  EXPECT_TRUE(ServerLock::Acquire(db).ok());
}

TEST(ServerLockTest, ExclusiveStoreRefusesASecondOneOnTheSameFile) {
  sqlite::TempDirForTest dir;
  SqliteOptions exclusive;
  exclusive.exclusive = true;
  auto first = SqliteStore::Open(dir.File("redrive.db"), exclusive);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = SqliteStore::Open(dir.File("redrive.db"), exclusive);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("one server per SQLite file"), std::string::npos)
      << second.status().message();
  // The lock is not SQLite's: the file stays open to everyone else, as to a
  // tool that reads it while the server runs.
  auto reader = SqliteStore::Open(dir.File("redrive.db"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_TRUE((*reader)->Migrate().ok());
  auto read = (*reader)->BeginRead();
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE((*read)->ListQueues().ok());
  // Another file is another lock.
  EXPECT_TRUE(SqliteStore::Open(dir.File("other.db"), exclusive).ok());
  first->reset();
  EXPECT_TRUE(SqliteStore::Open(dir.File("redrive.db"), exclusive).ok());
}

}  // namespace
}  // namespace redrive::store
