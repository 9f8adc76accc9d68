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
    // Without MOVEFILE_REPLACE_EXISTING the move fails when `b` exists.
    if (!MoveFileExW(a.c_str(), b.c_str(), MOVEFILE_WRITE_THROUGH)) return win32::write_error(b, GetLastError());
    return {};
}

}  // namespace envfix::fs
