#include "api/auth.h"

#include <gtest/gtest.h>

namespace redrive::api {
namespace {

Request WithAuth(const std::string& value) {
  Request r;
  r.headers["authorization"] = value;
  return r;
}

const std::vector<ApiKey> kKeys = {
    {Role::kAdmin, "adm"}, {Role::kWorker, "wrk"}, {Role::kViewer, "view"}};

TEST(AuthTest, NoKeysConfiguredMeansAdmin) {
  EXPECT_EQ(Authenticate(Request{}, {}).value(), Role::kAdmin);
  EXPECT_EQ(Authenticate(WithAuth("Bearer whatever"), {}).value(), Role::kAdmin);
}

TEST(AuthTest, BearerKeysMapToRoles) {
  EXPECT_EQ(Authenticate(WithAuth("Bearer adm"), kKeys).value(), Role::kAdmin);
  EXPECT_EQ(Authenticate(WithAuth("Bearer wrk"), kKeys).value(), Role::kWorker);
  EXPECT_EQ(Authenticate(WithAuth("bearer view"), kKeys).value(), Role::kViewer);
  EXPECT_EQ(Authenticate(WithAuth("BEARER  view "), kKeys).value(), Role::kViewer);
}

TEST(AuthTest, MissingOrUnknownKeyIsUnauthorized) {
  EXPECT_EQ(Authenticate(Request{}, kKeys).status().code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(Authenticate(WithAuth("Bearer nope"), kKeys).status().code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(Authenticate(WithAuth("Basic adm"), kKeys).status().code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(Authenticate(WithAuth("Bearer "), kKeys).status().code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(Authenticate(WithAuth("Bearer ad"), kKeys).status().code(), ErrorCode::kUnauthorized);
}

TEST(AuthTest, RolesAgainstRouteAccess) {
  EXPECT_TRUE(Authorize(Role::kAdmin, kAdminOnly).ok());
  EXPECT_EQ(Authorize(Role::kWorker, kAdminOnly).code(), ErrorCode::kAccessDenied);
  EXPECT_EQ(Authorize(Role::kViewer, kAdminOnly).code(), ErrorCode::kAccessDenied);
  EXPECT_TRUE(Authorize(Role::kWorker, kWorkers).ok());
  EXPECT_EQ(Authorize(Role::kViewer, kWorkers).code(), ErrorCode::kAccessDenied);
  EXPECT_TRUE(Authorize(Role::kViewer, kViewers).ok());
  EXPECT_EQ(Authorize(Role::kWorker, kViewers).code(), ErrorCode::kAccessDenied);
  EXPECT_TRUE(Authorize(Role::kViewer, kPublic).ok());
}

}  // namespace
}  // namespace redrive::api
