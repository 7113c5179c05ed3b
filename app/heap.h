// The process heap, at the edge: handing freed pages back to the system.
#pragma once

namespace preflight::cli {

// Freed heap pages back to the system, after a large transient structure (a hub
// index's names, a big HTTP response) is released and before the next peak. With
// mimalloc (the Release binary's allocator, CMakeLists.txt says why) that is
// mi_collect(true); with glibc malloc_trim(0) (every arena's whole free pages).
void return_freed_memory();

}  // namespace preflight::cli
