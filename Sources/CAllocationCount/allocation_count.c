// Counts the process's heap allocations for `tessera bench`.
//
// The `tessera` executable defines malloc, calloc and realloc; the dynamic
// linker binds every caller in the process (the Swift runtime and the
// standard library included) to these definitions, which count the call
// and hand it to the C library's own allocator. free, posix_memalign and
// aligned_alloc stay the C library's: memory from either side is the same
// allocator's. Only this executable links this target; the libraries
// never do.
//
// Under AddressSanitizer or ThreadSanitizer the sanitizer replaces the
// allocator itself, so nothing is defined and the count is -1.

#include "CAllocationCount.h"

#include <stdatomic.h>
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TESSERA_ALLOCATION_COUNT_OFF 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TESSERA_ALLOCATION_COUNT_OFF 1
#endif

#if TESSERA_ALLOCATION_COUNT_OFF

int64_t tessera_allocation_count(void) { return -1; }

#else

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

static _Atomic int64_t allocations = 0;

void *malloc(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_realloc(pointer, size);
}

int64_t tessera_allocation_count(void) {
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}

#endif
