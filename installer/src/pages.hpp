#pragma once
// Giving pages of a read-only file mapping back while the mapping stays (docs/performance.md,
// "Peak memory of a cold install"): a mapped wheel's pages count in the process's resident set
// (and so in its peak, ru_maxrss) from the first touch until they are released or unmapped.
#include <string_view>

namespace envfix::installer::pages {

// Drops the whole pages inside `part` (a range of a read-only file mapping) from this process;
// the system keeps them in its file cache, and a later read maps them again. Bytes in partial
// pages at either end stay. POSIX: madvise(MADV_DONTNEED); Windows: VirtualUnlock, which takes
// pages that are not locked out of the working set.
void release(std::string_view part);

}  // namespace envfix::installer::pages
