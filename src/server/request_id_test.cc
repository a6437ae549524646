#include "server/request_id.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace redrive::server {
namespace {

TEST(RequestIdTest, KeepsASaneClientId) {
  EXPECT_EQ(AcceptOrMakeRequestId("req-42"), "req-42");
  EXPECT_EQ(AcceptOrMakeRequestId("a/b:c=d@e_f.g~"), "a/b:c=d@e_f.g~");
  const std::string longest(kMaxRequestIdLength, 'x');
  EXPECT_EQ(AcceptOrMakeRequestId(longest), longest);
}

TEST(RequestIdTest, ReplacesAnEmptyLongOrUnprintableClientId) {
  for (std::string bad :
       {std::string(), std::string(kMaxRequestIdLength + 1, 'x'), std::string("two words"),
        std::string("line\nbreak"), std::string("tab\t"), std::string("caf\xC3\xA9"),
        std::string("nul\0x", 5), std::string("\x7F")}) {
    std::string id = AcceptOrMakeRequestId(bad);
    EXPECT_NE(id, bad);
    EXPECT_EQ(id.size(), 16u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  }
}

TEST(RequestIdTest, MadeUpIdsDoNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) EXPECT_TRUE(seen.insert(AcceptOrMakeRequestId("")).second);
}

TEST(RequestIdTest, ScopeSetsAndRestoresTheThreadsId) {
  EXPECT_EQ(CurrentRequestId(), "");
  {
    ScopedRequestId outer("a");
    EXPECT_EQ(CurrentRequestId(), "a");
    {
      ScopedRequestId inner("b");
      EXPECT_EQ(CurrentRequestId(), "b");
    }
    EXPECT_EQ(CurrentRequestId(), "a");
  }
  EXPECT_EQ(CurrentRequestId(), "");
}

}  // namespace
}  // namespace redrive::server
