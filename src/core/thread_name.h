// Names the calling thread (shown by `top -H`, gdb and perf), at most 15 chars.
#pragma once

#include <pthread.h>

namespace redrive {

inline void SetThreadName(const char* name) { pthread_setname_np(pthread_self(), name); }

}  // namespace redrive
