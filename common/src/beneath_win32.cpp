// Paths inside a folder, reached without following links: Windows (beneath.hpp). Junctions and
// symbolic links are both reparse points; each folder on the way is checked for one.
#include <windows.h>

#include "envfix/common/beneath.hpp"
#include "envfix/common/win32_error.hpp"

namespace envfix::fs {

namespace {

namespace stdfs = std::filesystem;

std::string_view parent_of(std::string_view rel) {
    const auto slash = rel.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : rel.substr(0, slash);
}

}  // namespace

Expected<void> check_no_links(const stdfs::path& root, std::string_view rel) {
    const auto dir = parent_of(rel);
    size_t start = 0;
    while (start < dir.size()) {
        const size_t end = std::min(dir.find('/', start), dir.size());
        const std::string walked(dir.substr(0, end));
        const DWORD attrs = GetFileAttributesW((root / stdfs::u8path(walked)).c_str());
        if (attrs == INVALID_FILE_ATTRIBUTES || !(attrs & FILE_ATTRIBUTE_DIRECTORY)) return {};
        if (attrs & FILE_ATTRIBUTE_REPARSE_POINT)
            return fail(ExitCode::UnsafeState, "fs.link_on_the_way",
                        {{"path", (root / stdfs::u8path(std::string(rel))).string()}, {"link", (root / stdfs::u8path(walked)).string()}});
        start = end + 1;
    }
    return {};
}

Expected<void> move_beneath(const stdfs::path& root, std::string_view from, std::string_view to) {
    ENVFIX_TRY_VOID(check_no_links(root, from));
    ENVFIX_TRY_VOID(check_no_links(root, to));
    const auto a = root / stdfs::u8path(std::string(from)), b = root / stdfs::u8path(std::string(to));
    // Antivirus scanners and the search indexer open a new or changed file for a moment without
    // letting it be moved: a sharing violation is waited out, about 3 s at most, before it fails.
    // Without MOVEFILE_REPLACE_EXISTING the move fails when `b` exists.
    DWORD err = 0;
    for (DWORD wait_ms : {0, 20, 50, 100, 200, 400, 800, 1500}) {
        Sleep(wait_ms);
        if (MoveFileExW(a.c_str(), b.c_str(), MOVEFILE_WRITE_THROUGH)) return {};
        err = GetLastError();
        if (err != ERROR_SHARING_VIOLATION && err != ERROR_LOCK_VIOLATION && err != ERROR_ACCESS_DENIED) break;
    }
    if (err == ERROR_SHARING_VIOLATION || err == ERROR_LOCK_VIOLATION) return fail(ExitCode::Locked, "fs.in_use", {{"path", a.string()}});
    return win32::write_error(b, err);
}

}  // namespace envfix::fs
