#pragma once
// A wheel's METADATA entry read out of part of the wheel (its tail by HTTP ranges, or the whole
// file), on the directory envfix/wheel/zip.hpp reads: the planner needs no more of a wheel.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/wheel/zip.hpp"

namespace envfix::wheel::detail {

// The top-level "<name>-<version>.dist-info/METADATA" of a wheel (the one whose name part is
// `project` once normalised, else the only one).
const ZipEntry* find_metadata_entry(const std::vector<ZipEntry>& entries, std::string_view project);

// How many bytes from the entry's local header hold the header and the data (with room for a
// different extra field and a data descriptor).
uint64_t entry_span(const ZipEntry& e);

// The entry's bytes, decoded (stored, or deflate inflated by zlib; size and CRC-32 checked, at
// most kMaxMetadataBytes); `local` starts at its local header. Errors: BadWheel.
Expected<std::string> read_zip_entry(std::string_view local, const ZipEntry& e, std::string_view source);

}  // namespace envfix::wheel::detail
