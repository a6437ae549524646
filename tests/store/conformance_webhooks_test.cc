// Conformance: outgoing webhooks and their delivery outbox.
#include "core/limits.h"
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Webhook MakeWebhook(const std::string& id, Instant created = T(0)) {
  Webhook w;
  w.id = id;
  w.name = "hook " + id;
  w.url = "https://example.com/hooks/" + id + "?x=1";
  w.events = {"job.failed", "job.deadlettered"};
  w.secret = "whsec_" + id;
  w.format = WebhookFormat::kSlack;
  w.signature_format = SignatureFormat::kSpooled;
  w.consecutive_failures = 3;
  w.created_at = created;
  w.updated_at = created;
  return w;
}

WebhookDelivery MakeDelivery(const std::string& id, const std::string& webhook_id, Instant created,
                             Instant due) {
  WebhookDelivery d;
  d.id = id;
  d.webhook_id = webhook_id;
  d.event_id = "ev-" + id;
  d.event = "job.failed";
  d.body = R"({"id":"ev-)" + id + R"(","event":"job.failed"})";
  d.created_at = created;
  d.next_attempt_at = due;
  return d;
}

std::vector<std::string> DeliveryIds(const std::vector<WebhookDelivery>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.id);
  return out;
}

TEST_P(StoreConformanceTest, InsertWebhookRefusesOnePastTheLimit) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("a"), 2).ok());
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("b"), 2).ok());
  });
  Write([&](WriteTx& tx) {
    Status third = tx.InsertWebhook(MakeWebhook("c"), 2);
    EXPECT_EQ(third.code(), ErrorCode::kConflict);
    EXPECT_EQ(third.message(), WebhookLimitMessage(2));
  });
  EXPECT_EQ(BeginRead()->ListWebhooks()->size(), 2u);
  // Deleting one makes room.
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.DeleteWebhook("b").ok()); });
  Write([&](WriteTx& tx) { EXPECT_TRUE(tx.InsertWebhook(MakeWebhook("c"), 2).ok()); });
  EXPECT_EQ(BeginRead()->ListWebhooks()->size(), 2u);
}

TEST_P(StoreConformanceTest, WebhookRoundTripsEveryField) {
  Webhook w = MakeWebhook("w1");
  w.disabled_reason = "20 consecutive failed deliveries";
  w.enabled = false;
  w.last_delivery_at = T(9);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertWebhook(w, kNoWebhookLimit).ok()); });
  auto got = BeginRead()->GetWebhook("w1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, w);
  EXPECT_EQ(BeginRead()->GetWebhook("nope").status().code(), ErrorCode::kNotFound);
}

// Every body format the core knows is one the store keeps (its CHECK lists
// them all: a format added to core/webhook.h needs a migration on each store).
TEST_P(StoreConformanceTest, WebhookKeepsEveryFormat) {
  int n = 0;
  for (WebhookFormat f : {WebhookFormat::kJson, WebhookFormat::kSlack, WebhookFormat::kDiscord,
                          WebhookFormat::kTeams}) {
    Webhook w = MakeWebhook("f" + std::to_string(n++));
    w.format = f;
    Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertWebhook(w, kNoWebhookLimit).ok()); });
    auto got = BeginRead()->GetWebhook(w.id);
    ASSERT_TRUE(got.ok()) << WebhookFormatName(f) << ": " << got.status().ToString();
    EXPECT_EQ(got->format, f) << WebhookFormatName(f);
  }
}

TEST_P(StoreConformanceTest, WebhooksListOldestFirstAndUpdateReplacesFields) {
  Webhook a = MakeWebhook("a", T(2));
  Webhook b = MakeWebhook("b", T(1));
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(a, kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertWebhook(b, kNoWebhookLimit).ok());
  });
  auto list = BeginRead()->ListWebhooks();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, "b");
  a.name = "renamed";
  a.events = {"queue.paused"};
  a.enabled = false;
  a.format = WebhookFormat::kJson;
  a.signature_format = SignatureFormat::kRedrive;
  a.consecutive_failures = 0;
  a.updated_at = T(5);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateWebhook(a).ok()); });
  EXPECT_EQ(*BeginRead()->GetWebhook("a"), a);
  Write([&](WriteTx& tx) {
    EXPECT_EQ(tx.UpdateWebhook(MakeWebhook("ghost")).code(), ErrorCode::kNotFound);
  });
}

TEST_P(StoreConformanceTest, DeliveryRoundTripsAndUpdates) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("w"), kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("d1", "w", T(1), T(1))).ok());
  });
  WebhookDelivery d = *BeginRead()->GetDelivery("d1");
  EXPECT_EQ(d, MakeDelivery("d1", "w", T(1), T(1)));
  d.status = DeliveryStatus::kDelivered;
  d.attempts = 2;
  d.last_status_code = 204;
  d.last_error = "HTTP 500";
  d.delivered_at = T(7);
  d.duration_ms = 42;
  d.next_attempt_at = T(7);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateDelivery(d).ok()); });
  EXPECT_EQ(*BeginRead()->GetDelivery("d1"), d);
  Write([&](WriteTx& tx) {
    EXPECT_EQ(tx.UpdateDelivery(MakeDelivery("ghost", "w", T(1), T(1))).code(),
              ErrorCode::kNotFound);
  });
}

TEST_P(StoreConformanceTest, DeliveryUrlRoundTripsThroughEveryRead) {
  WebhookDelivery own = MakeDelivery("own", "w", T(1), T(1));
  own.url = "https://app.example.com/done?job=1";
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("w"), kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertDelivery(own).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("plain", "w", T(2), T(2))).ok());
  });
  EXPECT_EQ(*BeginRead()->GetDelivery("own"), own);
  EXPECT_EQ(BeginRead()->GetDelivery("plain")->url, std::nullopt);
  auto listed = BeginRead()->ListDeliveries({"w"});
  ASSERT_TRUE(listed.ok());
  EXPECT_THAT(*listed, ElementsAre(MakeDelivery("plain", "w", T(2), T(2)), own));
  // An update (the outcome of an attempt) keeps it.
  own.attempts = 1;
  own.last_status_code = 500;
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateDelivery(own).ok()); });
  auto tx = BeginWrite();
  auto due = tx->SelectDueDeliveries(T(100), 10);
  ASSERT_TRUE(due.ok());
  EXPECT_THAT(*due, ElementsAre(own, MakeDelivery("plain", "w", T(2), T(2))));
}

TEST_P(StoreConformanceTest, DeliveryReservationRoundTripsThroughEveryRead) {
  WebhookDelivery reserved = MakeDelivery("reserved", "w", T(1), T(1));
  reserved.reservation = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("w"), kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertDelivery(reserved).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("plain", "w", T(2), T(2))).ok());
  });
  EXPECT_EQ(*BeginRead()->GetDelivery("reserved"), reserved);
  EXPECT_EQ(BeginRead()->GetDelivery("plain")->reservation, std::nullopt);
  {
    auto listed = BeginRead()->ListDeliveries({"w"});
    ASSERT_TRUE(listed.ok());
    EXPECT_THAT(*listed, ElementsAre(MakeDelivery("plain", "w", T(2), T(2)), reserved));
  }
  // A new reservation replaces the old one; clearing it writes NULL.
  reserved.reservation = "0190a1b2-c3d4-7e5f-8a9b-ffffffffffff";
  reserved.next_attempt_at = T(61);
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.UpdateDelivery(reserved).ok());
    auto in_tx = tx.GetDelivery("reserved");
    ASSERT_TRUE(in_tx.ok());
    EXPECT_EQ(*in_tx, reserved);  // the write transaction's own reads see it
  });
  EXPECT_EQ(*BeginRead()->GetDelivery("reserved"), reserved);
  {
    auto tx = BeginWrite();
    auto due = tx->SelectDueDeliveries(T(100), 10);
    ASSERT_TRUE(due.ok());
    EXPECT_THAT(*due, ElementsAre(MakeDelivery("plain", "w", T(2), T(2)), reserved));
  }
  reserved.reservation.reset();
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateDelivery(reserved).ok()); });
  EXPECT_EQ(BeginRead()->GetDelivery("reserved")->reservation, std::nullopt);
}

TEST_P(StoreConformanceTest, DueDeliveriesArePendingDueAndOfEnabledWebhooksEarliestFirst) {
  Webhook off = MakeWebhook("off");
  off.enabled = false;
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("on"), kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertWebhook(off, kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("late", "on", T(0), T(5))).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("early", "on", T(0), T(2))).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("future", "on", T(0), T(50))).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("disabled", "off", T(0), T(1))).ok());
    WebhookDelivery done = MakeDelivery("done", "on", T(0), T(1));
    done.status = DeliveryStatus::kFailed;
    ASSERT_TRUE(tx.InsertDelivery(done).ok());
  });
  auto tx = BeginWrite();
  auto due = tx->SelectDueDeliveries(T(10), 10);
  ASSERT_TRUE(due.ok()) << due.status().ToString();
  EXPECT_THAT(DeliveryIds(*due), ElementsAre("early", "late"));
  EXPECT_THAT(DeliveryIds(*tx->SelectDueDeliveries(T(10), 1)), ElementsAre("early"));
  EXPECT_EQ(*tx->NextDeliveryDue(), T(2));
  EXPECT_THAT(DeliveryIds(*tx->SelectDueDeliveries(T(1), 10)), IsEmpty());
}

TEST_P(StoreConformanceTest, NoDeliveryDueWithoutPendingRows) {
  EXPECT_EQ(*BeginRead()->NextDeliveryDue(), std::nullopt);
}

TEST_P(StoreConformanceTest, DeliveriesListNewestFirstByStatusWithPaging) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("w"), kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("other"), kNoWebhookLimit).ok());
    for (int i = 1; i <= 4; ++i) {
      WebhookDelivery d = MakeDelivery("d" + std::to_string(i), "w", T(i), T(i));
      if (i % 2 == 0) {
        d.status = DeliveryStatus::kDelivered;
        d.delivered_at = T(i);
      }
      ASSERT_TRUE(tx.InsertDelivery(d).ok());
    }
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("x", "other", T(9), T(9))).ok());
  });
  auto tx = BeginRead();
  EXPECT_THAT(DeliveryIds(*tx->ListDeliveries({"w"})), ElementsAre("d4", "d3", "d2", "d1"));
  EXPECT_THAT(DeliveryIds(*tx->ListDeliveries({"w", DeliveryStatus::kPending})),
              ElementsAre("d3", "d1"));
  EXPECT_THAT(DeliveryIds(*tx->ListDeliveries({"w", std::nullopt, 2, 1})), ElementsAre("d3", "d2"));
}

TEST_P(StoreConformanceTest, DeletingAWebhookDeletesItsDeliveries) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("w"), kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("d1", "w", T(1), T(1))).ok());
  });
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.DeleteWebhook("w").ok()); });
  EXPECT_EQ(BeginRead()->GetDelivery("d1").status().code(), ErrorCode::kNotFound);
  Write([&](WriteTx& tx) { EXPECT_EQ(tx.DeleteWebhook("w").code(), ErrorCode::kNotFound); });
}

TEST_P(StoreConformanceTest, RetentionDeletesOnlyOldFinishedDeliveries) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("w"), kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("old-pending", "w", T(1), T(1))).ok());
    WebhookDelivery old_failed = MakeDelivery("old-failed", "w", T(1), T(1));
    old_failed.status = DeliveryStatus::kFailed;
    ASSERT_TRUE(tx.InsertDelivery(old_failed).ok());
    WebhookDelivery new_done = MakeDelivery("new-done", "w", T(100), T(100));
    new_done.status = DeliveryStatus::kDelivered;
    new_done.delivered_at = T(100);
    ASSERT_TRUE(tx.InsertDelivery(new_done).ok());
  });
  Write([&](WriteTx& tx) {
    auto n = tx.DeleteFinishedDeliveries(T(50), 100);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 1);
  });
  EXPECT_THAT(DeliveryIds(*BeginRead()->ListDeliveries({"w"})),
              ElementsAre("new-done", "old-pending"));
}

TEST_P(StoreConformanceTest, ADeliveryRolledBackToItsSavepointIsNotWritten) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertWebhook(MakeWebhook("w"), kNoWebhookLimit).ok());
    ASSERT_TRUE(tx.Savepoint().ok());
    ASSERT_TRUE(tx.InsertDelivery(MakeDelivery("d1", "w", T(1), T(1))).ok());
    ASSERT_TRUE(tx.RollbackToSavepoint().ok());
  });
  EXPECT_THAT(BeginRead()->ListDeliveries({"w"})->size(), 0u);
}

TEST_P(StoreConformanceTest, WebhooksVersionMovesWithSubscriptionsNotWithBookkeeping) {
  auto version = [&] {
    auto v = BeginRead()->WebhooksVersion();
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : -1;
  };
  const int64_t empty = version();
  Webhook w = MakeWebhook("w");
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertWebhook(w, kNoWebhookLimit).ok()); });
  const int64_t created = version();
  EXPECT_GT(created, empty);

  // Delivery bookkeeping: the subscription is unchanged.
  w.consecutive_failures = 7;
  w.last_delivery_at = T(5);
  w.updated_at = T(5);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateWebhook(w).ok()); });
  EXPECT_EQ(version(), created);

  // Each subscription field moves it.
  int64_t last = created;
  auto changed = [&](const std::function<void(Webhook&)>& change) {
    change(w);
    Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateWebhook(w).ok()); });
    const int64_t now = version();
    EXPECT_GT(now, last);
    last = now;
  };
  changed([](Webhook& x) { x.enabled = false; });
  changed([](Webhook& x) { x.url = "https://example.com/other"; });
  changed([](Webhook& x) { x.events = {"job.completed"}; });
  changed([](Webhook& x) { x.secret = "whsec_rotated"; });
  changed([](Webhook& x) { x.format = WebhookFormat::kJson; });
  changed([](Webhook& x) { x.name = "renamed"; });

  // Seen inside a write transaction too, and moved by a delete.
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.DeleteWebhook("w").ok());
    auto in_tx = tx.WebhooksVersion();
    ASSERT_TRUE(in_tx.ok());
    EXPECT_GT(*in_tx, last);
  });
  EXPECT_GT(version(), last);
}

TEST_P(StoreConformanceTest, ADeliveryForAWebhookDeletedMeanwhileIsNotWrittenAndNotAnError) {
  Write([&](WriteTx& tx) {
    Status st = tx.InsertDelivery(MakeDelivery("d", "gone", T(0), T(0)));
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  EXPECT_EQ(BeginRead()->GetDelivery("d").status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace redrive::store::testing
