#pragma once
// A wheel's directory as open_wheel() read and checked it (its zip entries, RECORD rows, the
// .dist-info's WHEEL facts, METADATA, entry points, warnings), kept beside the unpacked-wheel
// cache under the wheel's sha256 (unpacked_store.hpp: load_directory / keep_directory), so a
// warm install plans from it without opening the archive: torch's 12 000 entries and RECORD rows
// were read and checked again on every install (a third of a warm install's "opened and planned").
// Pure: bytes in, bytes out. The format carries a version, the wheel's sha256 and a digest of its
// own bytes; anything off (another version, another wheel, cut short, a byte changed, a path or
// RECORD row open_wheel would refuse) decodes as nothing and the archive is opened. The version
// changes with what open_wheel accepts or records.
#include <optional>
#include <string>
#include <string_view>

#include "envfix/installer/wheel.hpp"

namespace envfix::installer {

inline constexpr uint32_t kWheelDirectoryVersion = 2;

// `metadata_text`: the METADATA member as in the archive (parsed again on decoding).
std::string encode_wheel_directory(const WheelFile& w, std::string_view metadata_text, std::string_view sha256);

// The WheelFile open_wheel(file) gave, without its mapping (WheelFile::bytes() maps the file on
// first use); nullopt when the bytes are not a whole directory of version 1 for `sha256`, or
// when `file`'s name is not that wheel's.
std::optional<WheelFile> decode_wheel_directory(std::string_view bytes, std::string_view sha256, const std::filesystem::path& file);

}  // namespace envfix::installer
