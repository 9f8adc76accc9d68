#include <fcntl.h>
#include <unistd.h>

#include "file_sync.hpp"

namespace envfix::resolver::detail {
std::FILE* open_file(const std::filesystem::path& p, const char* mode) { return std::fopen(p.c_str(), mode); }
bool flush_to_disk(std::FILE* f) { return std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0; }
bool seek_to(std::FILE* f, uint64_t offset) { return ::fseeko(f, static_cast<off_t>(offset), SEEK_SET) == 0; }
void start_writeback([[maybe_unused]] const std::filesystem::path& p) {
#ifdef __linux__
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    ::close(fd);
#endif
}
}  // namespace envfix::resolver::detail
