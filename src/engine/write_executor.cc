#include "engine/write_executor.h"

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
