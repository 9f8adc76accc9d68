// Releasing mapped pages on POSIX (pages.hpp).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "pages.hpp"

namespace envfix::installer::pages {

void release(std::string_view part) {
    static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    uintptr_t b = reinterpret_cast<uintptr_t>(part.data());
    uintptr_t e = b + part.size();
    b = (b + page - 1) & ~(page - 1);
    e &= ~(page - 1);
    // Read-only private mapping of a file: dropping a page loses nothing (it was never written).
    if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
}

}  // namespace envfix::installer::pages
