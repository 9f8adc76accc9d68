#pragma once
// stdio files by path (wide paths on Windows) and flushing them to the disk.
#include <cstdint>
#include <cstdio>
#include <filesystem>

namespace envfix::resolver::detail {
std::FILE* open_file(const std::filesystem::path& p, const char* mode);
bool flush_to_disk(std::FILE* f);  // fflush + fsync / _commit
bool seek_to(std::FILE* f, uint64_t offset);  // 64-bit fseek from the start
// Starts writing the file's dirty pages to the disk without waiting (Linux: sync_file_range), so
// a later flush of the whole filesystem finds little left; nothing elsewhere.
void start_writeback(const std::filesystem::path& p);
}  // namespace envfix::resolver::detail
