#include <io.h>

#include <string>

#include "file_sync.hpp"

namespace envfix::network::detail {
std::FILE* open_file(const std::filesystem::path& p, const char* mode) {
    std::wstring wmode(mode, mode + std::char_traits<char>::length(mode));
    return ::_wfopen(p.c_str(), wmode.c_str());
}
bool flush_to_disk(std::FILE* f) { return std::fflush(f) == 0 && ::_commit(::_fileno(f)) == 0; }
bool seek_to(std::FILE* f, uint64_t offset) { return ::_fseeki64(f, static_cast<__int64>(offset), SEEK_SET) == 0; }
}  // namespace envfix::network::detail
