// The consumer's own core/job.h, on its include path before the SDK's: the
// SDK's headers must not pick it up (they include redrive/core/job.h).
#pragma once
#error "the consumer's core/job.h was included by a Redrive header"
