#include "heap.h"

#include <cstdlib>  // defines __GLIBC__ where it applies

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if __has_include(<mimalloc.h>)
#include <mimalloc.h>
// Weak: resolved when the binary links mimalloc (PREFLIGHT_MIMALLOC), null in the
// tests, sanitizer and fuzz builds, which keep the C library's allocator.
#pragma weak mi_collect
#pragma weak mi_option_set
#define PREFLIGHT_HAS_MIMALLOC_API 1
#endif

namespace preflight::cli {

void return_freed_memory() {
#if defined(PREFLIGHT_HAS_MIMALLOC_API)
  if (&mi_collect != nullptr && &mi_option_set != nullptr) {
    // From here on freed pages go back at once, not after mimalloc's default 25 ms
    // (2.0.9's decommit_delay): Kimi K3 from the hub with every shard header peaked
    // at 185 MiB with the delay and 106 MiB without it (glibc with malloc_trim: 144).
    mi_option_set(mi_option_decommit_delay, 0);
    mi_collect(true);
    return;
  }
#endif
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace preflight::cli
