// The process heap, at the edge: handing freed pages back to the system.
#pragma once

namespace preflight::cli {

// Freed heap pages back to the system, after a large transient structure (a hub
// index's names, a big HTTP response) is released and before the next peak. With
// mimalloc (the Release binary's allocator, CMakeLists.txt says why) that is
// mi_collect(true); with glibc malloc_trim(0) (every arena's whole free pages).
void return_freed_memory();

// A short run asks the heap for transparent huge pages (heap.cc says when, why and
// what it saves). Where that guess was wrong (a hub read or the server reached
// from a line that looked short), the heap grown from here on is in 4 KiB pages
// again, which return_freed_memory can hand back.
void prefer_small_pages();

// Whether a command line (argc, argv as main gets them) will hold large transient
// data, so its heap stays in 4 KiB pages: the server, or an argument with a '/'
// (a hub id or a path rather than the embedded catalogue).
bool holds_large_transients(int argc, const char* const* argv);

}  // namespace preflight::cli
