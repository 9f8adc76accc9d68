#pragma once
// fn(0) ... fn(n - 1) on the calling thread and on helper threads kept for the process.
#include <cstddef>
#include <functional>

namespace envfix {

// On up to `most` threads (the caller's among them), one per `per_thread` items; for work that
// waits (metadata writes, index pages) as much as for work that computes, so `most` may exceed
// the cores. The helpers are made on first use and kept: making and joining a set per call cost
// more than the work in a warm install. A call from inside another's work, or while every helper
// is busy, runs on its caller's thread. What fn throws, on any thread, the call throws once no
// helper is in its work.
void parallel_for(size_t n, const std::function<void(size_t)>& fn, size_t per_thread = 8, size_t most = 16);

}  // namespace envfix
