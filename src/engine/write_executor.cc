#include "engine/write_executor.h"

#include <algorithm>
#include <future>

#include "engine/group_committer.h"
#include "engine/pooled_executor.h"

namespace redrive::engine {

Status WriteExecutor::RunAndWait(std::function<Status(store::WriteTx&, TxContext&)> run) {
  auto done = std::make_shared<std::promise<Status>>();
  auto result = done->get_future();
  Submit({.run = std::move(run),
          .after = [done](Status s) { done->set_value(std::move(s)); },
          .background = true});
  return result.get();
}

WriteExecutor::SavepointRun WriteExecutor::RunInSavepoint(
    store::WriteTx& tx, WriteOp& op, TxContext& tx_ctx, Instant now, Random& random,
    std::map<std::string, long long>& fresh, std::map<std::string, long long>& claimed) const {
  SavepointRun r;
  r.result = tx.Savepoint();
  if (!r.result.ok()) return r;
  TxContext op_ctx{now,      random,      {},
                   {},       hooks_,      tx_ctx.subscriptions,
                   node_id_, max_queues_, tx_ctx.completion_webhook_exists};
  r.ran = true;
  r.result = op.run(tx, op_ctx);
  r.end = r.result.ok() ? tx.ReleaseSavepoint() : tx.RollbackToSavepoint();
  if (r.result.ok() && r.end.ok()) {
    for (const auto& [q, n] : op_ctx.effects.became_claimable) fresh[q] += n;
    for (const auto& [q, n] : op_ctx.effects.claimed) claimed[q] += n;
    tx_ctx.effects.Merge(op_ctx.effects);
  }
  return r;
}

void ForgetHandedOver(std::map<std::string, long long>& became_claimable,
                      const std::map<std::string, long long>& fresh,
                      const std::map<std::string, long long>& claimed) {
  for (const auto& [queue, n] : fresh) {
    auto it = became_claimable.find(queue);
    const auto took = claimed.find(queue);
    if (it == became_claimable.end() || took == claimed.end()) continue;
    it->second -= std::min(n, took->second);
    if (it->second <= 0) became_claimable.erase(it);
  }
}

std::unique_ptr<WriteExecutor> MakeWriteExecutor(store::Store& store, const Clock& clock,
                                                 Random& random, WriteExecutorOptions options,
                                                 WriteExecutor::EffectsSink recorded,
                                                 WriteExecutor::EffectsSink answered) {
  const store::StoreTraits traits = store.traits();
  switch (traits.write_model) {
    case store::WriteModel::kGroupCommit:
      break;
    case store::WriteModel::kTransactionPerRequest:
      return std::make_unique<PooledExecutor>(store, clock, random, traits.writer_connections,
                                              options, std::move(recorded), std::move(answered));
  }
  return std::make_unique<GroupCommitter>(store, clock, random, options.max_batch,
                                          std::move(recorded), std::move(answered));
}

}  // namespace redrive::engine
