#pragma once
// stdio files by path (wide paths on Windows) and flushing them to the disk before a rename.
#include <cstdio>
#include <filesystem>

namespace envfix::resolver::detail {
std::FILE* open_file(const std::filesystem::path& p, const char* mode);
bool flush_to_disk(std::FILE* f);  // fflush + fsync / _commit
}  // namespace envfix::resolver::detail
