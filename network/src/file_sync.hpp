#pragma once
// stdio files by path (wide paths on Windows) and flushing them to the disk before a rename.
#include <cstdint>
#include <cstdio>
#include <filesystem>

namespace envfix::network::detail {
std::FILE* open_file(const std::filesystem::path& p, const char* mode);
bool flush_to_disk(std::FILE* f);  // fflush + fsync / _commit
bool seek_to(std::FILE* f, uint64_t offset);  // 64-bit fseek from the start
}  // namespace envfix::network::detail
