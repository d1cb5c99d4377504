#ifndef TESSERA_C_ALLOCATION_COUNT_H
#define TESSERA_C_ALLOCATION_COUNT_H

#include <stdint.h>

/// The number of heap allocations (malloc, calloc and realloc calls) the
/// process has made since it started, or -1 when this build cannot count
/// them (under a sanitizer, which supplies its own allocator).
int64_t tessera_allocation_count(void);

#endif
