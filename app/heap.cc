#include "heap.h"

#include <cstdlib>  // defines __GLIBC__ where it applies
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if __has_include(<mimalloc.h>)
#include <mimalloc.h>
// Weak: resolved when the binary links mimalloc (PREFLIGHT_MIMALLOC), null in the
// tests, sanitizer and fuzz builds, which keep the C library's allocator.
#pragma weak mi_collect
#pragma weak mi_option_set
#pragma weak mi_option_set_enabled_default
#pragma weak mi_option_set_enabled
#define PREFLIGHT_HAS_MIMALLOC_API 1
#endif

namespace preflight::cli {

namespace {

#if defined(PREFLIGHT_HAS_MIMALLOC_API)
// Before the first allocation (a constructor of priority 101 runs ahead of the
// program's other static initializers, and after mimalloc's own), a short run
// asks the heap for transparent huge pages (mimalloc's large_os_pages: its
// segments are madvised). A Kimi K3 plan first-touches ~540 heap pages; on the
// 2-core VM a 4 KiB first touch costs ~1.7 us, one 2 MiB page ~0.2 ms
// in all (a toucher: 500 pages 0.98 ms, against 0.21 ms in huge pages). Faults
// of a K3 plan 692 -> 215; best of 61-101 interleaved, 0.25 to 0.85 ms less.
//
// Not for a run that holds large transient data: mimalloc then keeps its first
// segment committed (Kimi K3 from the hub with every shard header peaked at
// 136 MiB against 109). `serve`, and any argument with a '/' (a hub id or a
// path: the model is not the embedded catalogue), keep 4 KiB pages; a wrong
// guess costs only time or peak memory. Only a default: MIMALLOC_LARGE_OS_PAGES
// in the environment decides over it, and where the kernel's THP mode is
// "never" nothing changes. glibc passes argc and argv to ELF constructors.
__attribute__((constructor(101))) void prefer_large_pages(int argc, char** argv, char**) {
  if (&mi_option_set_enabled_default == nullptr || holds_large_transients(argc, argv)) return;
  mi_option_set_enabled_default(mi_option_large_os_pages, true);
}
#endif

}  // namespace

bool holds_large_transients(int argc, const char* const* argv) {
  for (int i = 1; i < argc && argv[i] != nullptr; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "serve") == 0) return true;  // the command, wherever it stands
    if (std::strchr(a, '/') != nullptr) return true;
  }
  return false;
}

void prefer_small_pages() {
#if defined(PREFLIGHT_HAS_MIMALLOC_API)
  if (&mi_option_set_enabled == nullptr) return;
  // Segments from here on (each thread's, the big blocks') are not madvised; the
  // one already in use stays as it is.
  mi_option_set_enabled(mi_option_large_os_pages, false);
#endif
}

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
