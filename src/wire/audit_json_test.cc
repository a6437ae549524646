#include "wire/audit_json.h"

#include <gtest/gtest.h>

#include "core/time_format.h"

namespace redrive::wire {
namespace {

AuditEntry FullEntry() {
  AuditEntry e;
  e.id = "0193a1b2-0000-7000-8000-000000000001";
  e.at = *ParseTime("2027-01-15T08:00:00.123Z");  // the wire carries milliseconds
  e.actor = "oncall";
  e.role = "admin";
  e.client_address = "192.0.2.7";
  e.method = "POST";
  e.route = "/api/v1/jobs/dlq/retry";
  e.action = "dlq.retry";
  e.targets = {"job:a", "job:b"};
  e.selector = R"({"queue_name":"payments"})";
  e.count = 2;
  e.status = 200;
  e.request_id = "req-1";
  e.reason = "gateway fixed, INC-4411";
  return e;
}

TEST(AuditJsonTest, RoundTripsForAdmins) {
  const AuditEntry e = FullEntry();
  EXPECT_EQ(AuditEntryFromJson(AuditEntryToJson(e, true)), e);
}

TEST(AuditJsonTest, LeavesClientAddressOutForViewersAndNullsUnsetFields) {
  AuditEntry e = FullEntry();
  e.selector.reset();
  e.count.reset();
  e.reason.reset();
  boost::json::object o = AuditEntryToJson(e, false);
  EXPECT_FALSE(o.contains("client_address"));
  EXPECT_TRUE(o.at("selector").is_null());
  EXPECT_TRUE(o.at("count").is_null());
  EXPECT_TRUE(o.at("reason").is_null());
  e.client_address.clear();
  EXPECT_EQ(AuditEntryFromJson(o), e);
}

}  // namespace
}  // namespace redrive::wire
