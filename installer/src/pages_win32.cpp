// Releasing mapped pages on Windows (pages.hpp).
#include <windows.h>

#include <cstdint>

#include "pages.hpp"

namespace envfix::installer::pages {

void release(std::string_view part) {
    static const uintptr_t page = [] {
        SYSTEM_INFO si;
        GetSystemInfo(&si);
        return static_cast<uintptr_t>(si.dwPageSize);
    }();
    uintptr_t b = reinterpret_cast<uintptr_t>(part.data());
    uintptr_t e = b + part.size();
    b = (b + page - 1) & ~(page - 1);
    e &= ~(page - 1);
    // VirtualUnlock on pages that are not locked removes them from the working set and fails
    // with ERROR_NOT_LOCKED, which is the expected answer here (documented under VirtualUnlock).
    if (e > b) VirtualUnlock(reinterpret_cast<void*>(b), static_cast<SIZE_T>(e - b));
}

}  // namespace envfix::installer::pages
