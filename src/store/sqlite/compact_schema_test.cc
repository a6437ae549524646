// The migrations of the compact job storage (compact_schema.cc, versions 24
// to 29): a store from before each keeps every job and what hangs off it.
#include "store/sqlite/compact_schema.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/sqlite/history_codec.h"
#include "store/sqlite/job_sql.h"
#include "store/sqlite/row_mapping.h"
#include "store/sqlite/schema_test_util.h"

namespace redrive::store::sqlite {
namespace {

// The compact-storage migration rebuilds jobs (a seq key) and re-keys
// payloads and history by it. A file from before keeps every job, payload,
// result and history entry (text ids read back as stored, in order), and
// every row that references a job by id (tags, dependencies, workflow
// membership, revivals); deleting a job afterwards still takes all of them.
TEST_F(SchemaTest, TheCompactStorageMigrationKeepsEveryJobAndWhatHangsOffIt) {
  ASSERT_TRUE(MigrateToBefore("compact job storage: jobs.seq keys payloads and history").ok());
  auto insert = [&](const std::string& id, const std::string& status) {
    return conn_->ExecScript(
        "INSERT INTO jobs (id, queue_name, status, priority, retry_count, max_retries,"
        " timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, created_at,"
        " updated_at, scheduled_at, completed_at) VALUES ('" +
        id + "', 'q', '" + status + "', 0, 0, 3, 30, 1, 1, 1, 1, 1, 1, " +
        (status == "completed" ? "2" : "NULL") + ");");
  };
  ASSERT_TRUE(insert("j-b", "completed").ok());  // inserted first: seq 1
  ASSERT_TRUE(insert("j-a", "blocked").ok());
  ASSERT_TRUE(
      conn_
          ->ExecScript(
              "INSERT INTO job_payloads VALUES ('j-b', '{\"x\":1}', '\"done\"');"
              "INSERT INTO job_payloads VALUES ('j-a', '{\"y\":2}', NULL);"
              "INSERT INTO job_history (id, job_id, event_type, worker_id, details,"
              " created_at, node_id) VALUES"
              " ('h3', 'j-b', 'completed', NULL, '{}', 5, 'n1'),"
              " ('h1', 'j-b', 'created', NULL, '{\"queue_name\":\"q\"}', 1, NULL),"
              " ('h2', 'j-b', 'processing', 'w', '{}', 5, 'n1'),"
              " ('h4', 'j-a', 'created', NULL, '{}', 1, NULL);"
              "INSERT INTO job_tags VALUES ('j-b', 'k', 'v');"
              "INSERT INTO workflows (id, name, metadata, created_at) VALUES ('wf', 'w', '{}', 1);"
              "INSERT INTO workflow_jobs VALUES ('j-a', 'wf', 'a', 0);"
              "INSERT INTO job_dependencies (job_id, depends_on_job_id, mode)"
              " VALUES ('j-a', 'j-b', 'all');"
              "INSERT INTO job_auto_revivals VALUES ('j-b', 1);")
          .ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(*SchemaVersion(*conn_), Migrations().back().version);
  EXPECT_EQ(One("SELECT group_concat(seq || '=' || id || ':' || status, ',')"
                " FROM (SELECT * FROM jobs ORDER BY seq)"),
            "1=j-b:completed,2=j-a:blocked");
  EXPECT_EQ(One("SELECT group_concat(j.id || ':' || p.payload || ':' || ifnull(p.result, '-'), ',')"
                " FROM (SELECT * FROM job_payloads ORDER BY job_seq) p"
                " JOIN jobs j ON j.seq = p.job_seq"),
            "j-b:{\"x\":1}:\"done\",j-a:{\"y\":2}:-");
  // Ties in created_at keep their insertion order (h3 before h2).
  EXPECT_EQ(HistoryOf("j-b"), "h1:created,h3:completed,h2:processing");
  EXPECT_EQ(One("SELECT count(*) FROM job_tags WHERE job_id = 'j-b'"), "1");
  EXPECT_EQ(One("SELECT count(*) FROM job_dependencies"), "1");
  EXPECT_EQ(One("SELECT count(*) FROM workflow_jobs"), "1");
  EXPECT_EQ(One("SELECT count(*) FROM job_auto_revivals"), "1");
  EXPECT_EQ(One("PRAGMA foreign_keys"), "1");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");

  // The references hold after the rebuild: a job that does not exist has
  // no payload, and deleting one takes its rows in every table.
  EXPECT_FALSE(conn_->ExecScript("INSERT INTO job_payloads VALUES (99, '{}', NULL);").ok());
  ASSERT_TRUE(conn_->ExecScript("DELETE FROM jobs WHERE id = 'j-b';").ok());
  EXPECT_EQ(One("SELECT (SELECT count(*) FROM job_payloads) || ',' ||"
                " (SELECT count(*) FROM job_history) || ',' || (SELECT count(*) FROM job_tags)"
                " || ',' || (SELECT count(*) FROM job_dependencies) || ',' ||"
                " (SELECT count(*) FROM job_auto_revivals)"),
            "1,1,0,0,0");
}

// Version 25 rebuilds the three listing indexes without the id: a store
// from before keeps its jobs, and each index ends at created_at (the rowid,
// seq, breaks ties), whole and consistent with the table.
TEST_F(SchemaTest, TheListingIndexesLoseTheIdAndKeepEveryJob) {
  ASSERT_TRUE(MigrateToBefore("listing indexes without the job id").ok());
  for (const char* id : {"j-2", "j-1", "j-3"}) ASSERT_TRUE(InsertPendingJob(id).ok());
  ASSERT_TRUE(MigrateThrough("listing indexes without the job id").ok());
  EXPECT_EQ(One("SELECT group_concat(name || ':' || sql, ';') FROM (SELECT * FROM sqlite_master"
                " WHERE name IN ('jobs_listing', 'jobs_queue_created', 'jobs_created')"
                " ORDER BY name)"),
            "jobs_created:CREATE INDEX jobs_created ON jobs (created_at);"
            "jobs_listing:CREATE INDEX jobs_listing ON jobs (queue_name, status, created_at);"
            "jobs_queue_created:CREATE INDEX jobs_queue_created ON jobs (queue_name, created_at)");
  EXPECT_EQ(One("SELECT group_concat(id, ',') FROM (SELECT id FROM jobs INDEXED BY jobs_listing"
                " WHERE queue_name = 'q' AND status = 'pending' ORDER BY created_at, seq)"),
            "j-2,j-1,j-3");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
}

// Version 26 packs each job's history into segments (history_codec.h). A
// store from before keeps every entry of every job with every field and its
// id (16 bytes or text), in the order it was read (created_at, then rowid);
// a history longer than a segment takes several; the old table is gone, and
// deleting a job still takes its history.
TEST_F(SchemaTest, PackingTheHistoryKeepsEveryEntryWithItsId) {
  ASSERT_TRUE(MigrateToBefore("a job's history packed into segments").ok());
  for (const char* id : {"j-1", "j-2", "j-3"}) ASSERT_TRUE(InsertPendingJob(id).ok());
  // j-1: a UUID id as its 16 bytes, a text id, a tie in created_at (rowid
  // order), a worker and a node; j-2: 30 entries of 200-byte errors; j-3
  // none.
  std::string script =
      "INSERT INTO job_history (job_seq, id, event_type, worker_id, details, created_at, node_id)"
      " VALUES (1, x'01a243de882f7596bc9e152d007ef52f', 'created', NULL,"
      " '{\"queue_name\":\"q\"}', 7, 'n1'),"
      " (1, 'h-3', 'completed', 'w', '{}', 9, 'n1'),"
      " (1, 'h-2', 'processing', 'w',"
      " '{\"lease_id\":\"01a243de-882f-7596-bc9e-152d007ef530\",\"attempt\":1}', 9, NULL)";
  for (int i = 0; i < 30; ++i) {
    script += ", (2, 'e-" + std::to_string(i) + "', 'retry_scheduled', 'w', '{\"error\":\"" +
              std::string(200, static_cast<char>('a' + i % 26)) + "\"}', " +
              std::to_string(100 - i) + ", 'n2')";
  }
  ASSERT_TRUE(conn_->ExecScript(script + ";").ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_FALSE(TableExists("job_history_v25"));
  EXPECT_EQ(HistoryOf("j-1"),
            "01a243de-882f-7596-bc9e-152d007ef52f:created,h-3:completed,h-2:processing");
  std::string j2;
  for (int i = 29; i >= 0; --i)
    j2 += (j2.empty() ? "" : ",") + ("e-" + std::to_string(i)) + ":retry_scheduled";
  EXPECT_EQ(HistoryOf("j-2"), j2);
  EXPECT_EQ(HistoryOf("j-3"), "");
  EXPECT_EQ(One("SELECT count(*) FROM job_history WHERE job_seq = 1"), "1");
  EXPECT_GT(std::stoi(One("SELECT count(*) FROM job_history WHERE job_seq = 2")), 4);
  EXPECT_LE(std::stoi(One("SELECT max(length(entries)) FROM job_history")),
            static_cast<int>(history::kSegmentBytes));
  // Every field of an entry: decoded in full for j-1's processing entry.
  {
    auto stmt = conn_->Prepare("SELECT entries FROM job_history WHERE job_seq = 1");
    ASSERT_TRUE(stmt.ok() && *stmt->Step());
    std::vector<HistoryEntry> entries;
    size_t index = 0;
    ASSERT_TRUE(history::DecodeSegment(stmt->Blob(0), 1, "j-1", index, entries).ok());
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[2],
              (HistoryEntry{"h-2", "j-1", "processing", "w",
                            R"({"lease_id":"01a243de-882f-7596-bc9e-152d007ef530","attempt":1})",
                            InstantFromMicros(9), std::nullopt}));
    EXPECT_EQ(entries[0],
              (HistoryEntry{"01a243de-882f-7596-bc9e-152d007ef52f", "j-1", "created", std::nullopt,
                            R"({"queue_name":"q"})", InstantFromMicros(7), "n1"}));
  }
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
  ASSERT_TRUE(conn_->ExecScript("DELETE FROM jobs WHERE id = 'j-2';").ok());
  EXPECT_EQ(One("SELECT count(*) FROM job_history"), "1");
}

// Version 27 moves a job's lease from jobs to job_leases. A store from
// before keeps every job with its seq (the key of its payload and history),
// the lease of each processing job becomes its row of job_leases, the
// columns and the jobs_lease index are gone, and the references hold.
TEST_F(SchemaTest, TheLeaseMovesToATableOfItsOwn) {
  ASSERT_TRUE(MigrateToBefore("a job's lease in a table of its own").ok());
  std::string indexes = IndexesOf("jobs");
  const std::string lease_index = "jobs_lease,";
  ASSERT_NE(indexes.find(lease_index), std::string::npos) << indexes;
  indexes.erase(indexes.find(lease_index), lease_index.size());
  for (const char* id : {"j-1", "j-2", "j-3"}) ASSERT_TRUE(InsertPendingJob(id).ok());
  ASSERT_TRUE(
      conn_
          ->ExecScript("DELETE FROM jobs WHERE id = 'j-1';"  // seq 2 and 3 remain, 1 is free
                       "UPDATE jobs SET status = 'processing', started_at = 8,"
                       " assigned_worker_id = 'w-7', lease_id = 'l-3', lease_expires_at = 38"
                       " WHERE id = 'j-3';"
                       "INSERT INTO job_payloads VALUES (3, '{\"x\":3}', NULL);"
                       "INSERT INTO job_history VALUES (3, 0, x'00');")
          .ok());
  ASSERT_TRUE(MigrateThrough("a job's lease in a table of its own").ok());
  // The rebuilt table has every index the old one had but jobs_lease.
  EXPECT_EQ(IndexesOf("jobs"), indexes);
  EXPECT_EQ(IndexesOf("job_leases"), "job_leases_expiry");
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(One("SELECT group_concat(seq || '=' || id || ':' || status, ',')"
                " FROM (SELECT * FROM jobs ORDER BY seq)"),
            "2=j-2:pending,3=j-3:processing");
  EXPECT_EQ(One("SELECT group_concat(job_seq || ':' || assigned_worker_id || ':' || lease_id"
                " || ':' || lease_expires_at, ',') FROM job_leases"),
            "3:w-7:l-3:38");
  EXPECT_EQ(One("SELECT count(*) FROM pragma_table_info('jobs')"
                " WHERE name IN ('assigned_worker_id', 'lease_id', 'lease_expires_at')"),
            "0");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
  // The job reads back with its lease, and deleting it takes its payload,
  // history and lease.
  {
    auto job = conn_->Prepare(sql::kGetJob);
    ASSERT_TRUE(job.ok());
    const std::string id = "j-3";
    job->Bind(1, id);
    ASSERT_TRUE(*job->Step());
    Result<Job> read = ReadJob(*job);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(read->assigned_worker_id, "w-7");
    EXPECT_EQ(read->lease_id, "l-3");
    EXPECT_EQ(read->lease_expires_at, InstantFromMicros(38));
    EXPECT_EQ(read->payload, "{\"x\":3}");
  }
  ASSERT_TRUE(conn_->ExecScript("DELETE FROM jobs WHERE id = 'j-3';").ok());
  EXPECT_EQ(
      One("SELECT (SELECT count(*) FROM job_leases) || ',' ||"
          " (SELECT count(*) FROM job_payloads) || ',' || (SELECT count(*) FROM job_history)"),
      "0,0,0");
}

// Version 28 replaces jobs_retention with an index for each status whose
// jobs it deletes by age: the jobs stay, and each index holds its status's
// jobs only.
TEST_F(SchemaTest, RetentionHasAnIndexPerStatus) {
  ASSERT_TRUE(MigrateToBefore("retention indexes by status").ok());
  for (const char* id : {"j-1", "j-2", "j-3"}) ASSERT_TRUE(InsertPendingJob(id).ok());
  ASSERT_TRUE(conn_
                  ->ExecScript("UPDATE jobs SET status = 'completed', completed_at = 9"
                               " WHERE id = 'j-1';"
                               "UPDATE jobs SET status = 'cancelled', completed_at = 9"
                               " WHERE id = 'j-2';")
                  .ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(One("SELECT count(*) FROM sqlite_master WHERE name = 'jobs_retention'"), "0");
  EXPECT_EQ(One("SELECT group_concat(id, ',') FROM jobs INDEXED BY jobs_completed_retention"
                " WHERE status = 'completed'"),
            "j-1");
  EXPECT_EQ(One("SELECT group_concat(id, ',') FROM jobs INDEXED BY jobs_cancelled_retention"
                " WHERE status = 'cancelled'"),
            "j-2");
  EXPECT_EQ(One("SELECT count(*) FROM jobs"), "3");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
}

// Version 29 keeps each queue's name once, in queue_names, and in jobs its
// id; stores a job's id as its 16 bytes when it is a UUID; and a finished
// job's updated_at once, as its completed_at. A store from
// before keeps every job with its seq, its queue and its id (as text when it
// is not a UUID), each index of jobs is as it was with queue_id for
// queue_name, the tables that refer to a job by id follow it, and the
// references hold: a job of an id not in queue_names is refused, a name a
// job is in cannot go, and deleting a job takes its rows everywhere.
TEST_F(SchemaTest, AQueueNameIsKeptOnceAndAJobIdIs16Bytes) {
  ASSERT_TRUE(MigrateToBefore("a queue's name kept once, a job's id as 16 bytes").ok());
  const std::string kIndexes =
      "SELECT group_concat(name || ':' || replace(sql, 'queue_name', 'queue_id'), ';') FROM"
      " (SELECT * FROM sqlite_master WHERE type = 'index'"
      " AND tbl_name IN ('jobs', 'job_tags', 'job_dependencies', 'workflow_jobs',"
      " 'job_auto_revivals') AND sql IS NOT NULL ORDER BY name)";
  const std::string indexes = One(kIndexes);
  ASSERT_NE(indexes.find("jobs_listing:CREATE INDEX jobs_listing ON jobs (queue_id, status,"),
            std::string::npos)
      << indexes;
  const std::string a = "01a243de-882f-708e-a89a-e436b9173288";
  const std::string b = "01a243de-882f-708e-a89a-e436b9173289";
  for (const std::string& id : {std::string("j-0"), std::string("j-1"), a, b}) {
    ASSERT_TRUE(InsertPendingJob(id).ok());
  }
  ASSERT_TRUE(conn_
                  ->ExecScript("DELETE FROM jobs WHERE id = 'j-0';"  // seq 1 is free
                               "UPDATE jobs SET queue_name = 'emails', status = 'completed',"
                               " completed_at = 9, updated_at = 9 WHERE id = '" +
                               b +
                               "';"
                               "INSERT INTO job_payloads VALUES (4, '{\"x\":3}', NULL);"
                               "INSERT INTO job_tags VALUES ('" +
                               b +
                               "', 'k', 'v');"
                               "INSERT INTO job_dependencies (job_id, depends_on_job_id, mode)"
                               " VALUES ('" +
                               a + "', '" + b +
                               "', 'all');"
                               "INSERT INTO workflows (id, name, metadata, created_at)"
                               " VALUES ('w', 'w', '{}', 1);"
                               "INSERT INTO workflow_jobs VALUES ('" +
                               a +
                               "', 'w', 'first', 0);"
                               "INSERT INTO job_auto_revivals VALUES ('" +
                               b + "', 2);")
                  .ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(One(kIndexes), indexes);
  EXPECT_EQ(One("SELECT group_concat(id || '=' || name, ',') FROM"
                " (SELECT * FROM queue_names ORDER BY id)"),
            "1=emails,2=q");
  EXPECT_EQ(One("SELECT group_concat(seq || '=' || typeof(id) || ':' || hex(id) || ':' || queue_id,"
                " ',') FROM (SELECT * FROM jobs ORDER BY seq)"),
            "2=text:6A2D31:2,3=blob:01A243DE882F708EA89AE436B9173288:2,"
            "4=blob:01A243DE882F708EA89AE436B9173289:1");
  EXPECT_EQ(One("SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'queue_name'"), "0");
  // A finished job's updated_at, the same as its completed_at, is not kept twice.
  EXPECT_EQ(One("SELECT group_concat(coalesce(updated_at, 'NULL'), ',') FROM"
                " (SELECT * FROM jobs ORDER BY seq)"),
            "7,7,NULL");
  EXPECT_EQ(One("SELECT (SELECT hex(job_id) FROM job_tags) || ','"
                " || (SELECT hex(job_id) || '>' || hex(depends_on_job_id) FROM job_dependencies)"
                " || ',' || (SELECT hex(job_id) FROM workflow_jobs)"
                " || ',' || (SELECT hex(job_id) FROM job_auto_revivals)"),
            "01A243DE882F708EA89AE436B9173289,"
            "01A243DE882F708EA89AE436B9173288>01A243DE882F708EA89AE436B9173289,"
            "01A243DE882F708EA89AE436B9173288,01A243DE882F708EA89AE436B9173289");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
  {
    auto job = conn_->Prepare(sql::kGetJob);
    ASSERT_TRUE(job.ok());
    job->Bind(1, b);
    ASSERT_TRUE(*job->Step());
    Result<Job> read = ReadJob(*job);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(read->id, b);
    EXPECT_EQ(read->queue_name, "emails");
    EXPECT_EQ(read->updated_at, InstantFromMicros(9));
    EXPECT_EQ(read->payload, "{\"x\":3}");
  }
  {
    auto job = conn_->Prepare(sql::kGetJob);
    ASSERT_TRUE(job.ok());
    job->Bind(1, "j-1");
    ASSERT_TRUE(*job->Step());
    EXPECT_EQ(ReadJob(*job)->id, "j-1");
  }
  EXPECT_FALSE(conn_->ExecScript("UPDATE jobs SET queue_id = 3 WHERE seq = 2;").ok());
  EXPECT_FALSE(conn_->ExecScript("DELETE FROM queue_names WHERE name = 'emails';").ok());
  ASSERT_TRUE(conn_->ExecScript("DELETE FROM jobs WHERE seq = 4;").ok());
  EXPECT_TRUE(conn_->ExecScript("DELETE FROM queue_names WHERE name = 'emails';").ok());
  EXPECT_EQ(
      One("SELECT (SELECT count(*) FROM job_tags) || (SELECT count(*) FROM job_dependencies)"
          " || (SELECT count(*) FROM job_auto_revivals) || (SELECT count(*) FROM workflow_jobs)"),
      "0001");
}

}  // namespace
}  // namespace redrive::store::sqlite
