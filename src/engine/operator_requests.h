// The engine's parameter and result types of the operator audit log and of
// Idempotency-Keys on operator routes (engine_audit.cc). The HTTP layer
// decides what an entry says (api/operator_route.h); the engine stamps it
// with the engine clock and an id and writes it.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "core/audit.h"

namespace redrive::engine {

// How an Idempotency-Key reservation went (Engine::ReserveIdempotencyKey).
struct IdempotencyClaim {
  // True: this request holds the key now and must record its answer
  // (FinishOperatorRequest). False: `existing` holds it (in flight, or
  // answered and replayable), with another or the same fingerprint.
  bool reserved = false;
  std::optional<IdempotencyRecord> existing;
};

// What an operator request leaves behind once answered, written in one
// transaction (Engine::FinishOperatorRequest).
struct OperatorOutcome {
  // The audit entry; the engine sets its id and `at`. Unset: none.
  std::optional<AuditEntry> entry;
  // The key this request reserved, with the answer in its response_* fields
  // (completed: replayed until it expires); with release_key, freed instead.
  std::optional<IdempotencyRecord> key;
  bool release_key = false;
};

}  // namespace redrive::engine
