#include <unistd.h>

#include "file_sync.hpp"

namespace envfix::network::detail {
std::FILE* open_file(const std::filesystem::path& p, const char* mode) { return std::fopen(p.c_str(), mode); }
bool flush_to_disk(std::FILE* f) { return std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0; }
bool seek_to(std::FILE* f, uint64_t offset) { return ::fseeko(f, static_cast<off_t>(offset), SEEK_SET) == 0; }
}  // namespace envfix::network::detail
