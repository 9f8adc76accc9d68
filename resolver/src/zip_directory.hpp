#pragma once
// Private to the planner: a wheel's METADATA read from parts of the wheel (its end, then one
// entry), so a 900 MB torch wheel gives its dependencies for two HTTP range requests. Pure:
// bytes in, values out. The zip format: PKWARE APPNOTE 6.3 (end of central directory, zip64,
// central directory headers, local headers).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::resolver::detail {

struct ZipEntry {
    std::string name;
    uint64_t local_offset = 0;
    uint64_t compressed_size = 0;
    uint64_t size = 0;
    uint16_t method = 0;  // 0 stored, 8 deflate
    uint16_t flags = 0;
    uint32_t crc32 = 0;
};

// What the end of a zip file says. `tail` holds the file's last bytes (file_size in all).
struct ZipTail {
    std::vector<ZipEntry> entries;       // when the whole central directory is in `tail`
    std::optional<uint64_t> need_from;   // else: fetch from this offset to the end and parse again
};

// Errors: BadWheel "plan.wheel.not_zip" / "plan.wheel.zip_damaged" naming `source`.
Expected<ZipTail> parse_zip_tail(std::string_view tail, uint64_t file_size, std::string_view source);

// The top-level "<name>-<version>.dist-info/METADATA" of a wheel (the one whose name part is
// `project` once normalised, else the only one).
const ZipEntry* find_metadata_entry(const std::vector<ZipEntry>& entries, std::string_view project);

// How many bytes from the entry's local header hold the header and the data (with room for a
// different extra field and a data descriptor).
uint64_t entry_span(const ZipEntry& e);

// The entry's bytes, decoded; `local` starts at its local header. Errors: BadWheel.
Expected<std::string> read_zip_entry(std::string_view local, const ZipEntry& e, std::string_view source);

}  // namespace envfix::resolver::detail
