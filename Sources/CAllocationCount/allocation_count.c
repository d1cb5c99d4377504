// Counts the process's heap allocations for `tessera bench diff`.
//
// This library (the TesseraAllocationCount product,
// libTesseraAllocationCount.so) defines malloc, calloc, realloc and free.
// `tessera bench diff` runs itself again with the library in LD_PRELOAD,
// so the dynamic linker binds every caller in that process (the Swift
// runtime and the standard library included) to these definitions, which
// count each allocation and hand the call to the allocator found next in
// the lookup order (`dlsym(RTLD_NEXT, …)`): the C library's, or one
// preloaded after it (jemalloc, tcmalloc), so that memory always goes back
// to the allocator that gave it. posix_memalign, aligned_alloc and memalign
// are not defined here (over-aligned allocations are not counted); their
// memory is freed by the same next allocator. The `tessera` executable
// does not link this library: no other subcommand, `tessera serve` among
// them, counts anything.
//
// Under AddressSanitizer or ThreadSanitizer the sanitizer replaces the
// allocator itself, and off glibc `RTLD_NEXT` may be missing: then nothing
// is defined and the count is -1.

#define _GNU_SOURCE
#include <stdlib.h>

#include "CAllocationCount.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TESSERA_ALLOCATION_COUNT_OFF 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GLIBC__)
#define TESSERA_ALLOCATION_COUNT_OFF 1
#endif

#if TESSERA_ALLOCATION_COUNT_OFF

int64_t tessera_allocation_count(void) { return -1; }

#else

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

static _Atomic int64_t allocations = 0;

static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
// Set last: once it is, the three above are too.
static void (*_Atomic next_free)(void *);

// While this thread looks the allocator up, dlsym may itself allocate:
// that memory comes from a static buffer, and is never given back.
static _Thread_local int resolving = 0;
static _Alignas(16) unsigned char bootstrap[16384];
static _Atomic size_t bootstrap_used = 0;

static void *bootstrap_allocate(size_t size) {
    size_t rounded = (size + 15) & ~(size_t)15;
    size_t offset = atomic_fetch_add(&bootstrap_used, rounded);
    if (rounded < size || offset > sizeof bootstrap - rounded || rounded > sizeof bootstrap) return NULL;
    return bootstrap + offset; // static storage: zero already
}

static int is_bootstrap(const void *pointer) {
    const unsigned char *byte = pointer;
    return byte >= bootstrap && byte < bootstrap + sizeof bootstrap;
}

// Whether the next allocator is known; looks it up on first use.
static int resolve(void) {
    if (atomic_load_explicit(&next_free, memory_order_acquire)) return 1;
    if (resolving) return 0;
    resolving = 1;
    void *found_malloc = dlsym(RTLD_NEXT, "malloc");
    void *found_calloc = dlsym(RTLD_NEXT, "calloc");
    void *found_realloc = dlsym(RTLD_NEXT, "realloc");
    void *found_free = dlsym(RTLD_NEXT, "free");
    resolving = 0;
    if (!found_malloc || !found_calloc || !found_realloc || !found_free) abort();
    next_malloc = (void *(*)(size_t))found_malloc;
    next_calloc = (void *(*)(size_t, size_t))found_calloc;
    next_realloc = (void *(*)(void *, size_t))found_realloc;
    atomic_store_explicit(&next_free, (void (*)(void *))found_free, memory_order_release);
    return 1;
}

static void counted(void) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void *malloc(size_t size) {
    if (!resolve()) return bootstrap_allocate(size);
    counted();
    return next_malloc(size);
}

void *calloc(size_t count, size_t size) {
    if (!resolve()) {
        if (size != 0 && count > (size_t)-1 / size) return NULL;
        return bootstrap_allocate(count * size);
    }
    counted();
    return next_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (!resolve()) return pointer ? NULL : bootstrap_allocate(size);
    if (pointer && is_bootstrap(pointer)) {
        // Moved out of the buffer: as much of it as can have been asked for.
        void *moved = next_malloc(size);
        size_t available = (size_t)(bootstrap + sizeof bootstrap - (unsigned char *)pointer);
        if (moved) memcpy(moved, pointer, size < available ? size : available);
        counted();
        return moved;
    }
    // realloc(p, 0) frees rather than allocates.
    if (size != 0 || !pointer) counted();
    return next_realloc(pointer, size);
}

void free(void *pointer) {
    if (!pointer || is_bootstrap(pointer)) return;
    if (!resolve()) return;
    atomic_load_explicit(&next_free, memory_order_acquire)(pointer);
}

int64_t tessera_allocation_count(void) {
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}

#endif
