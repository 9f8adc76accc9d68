#pragma once
// Builds zip archives and wheels byte by byte for the installer's tests, with a knob for every
// way an archive can lie (local header vs central directory, sizes, CRCs, names, modes, data
// after the end), so each refusal is tested on a real archive without any other tool.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace envfix::test {

struct ZipItem {
    std::string name;
    std::string data;
    uint16_t method = 8;                      // 0 stored, 8 deflate
    uint32_t unix_mode = 0100644;             // external_attr >> 16 (host Unix)
    uint8_t made_by_host = 3;
    bool utf8_flag = false;
    bool data_descriptor = false;
    // Lies told by the local header or the central directory.
    std::optional<std::string> local_name;
    std::optional<uint32_t> local_crc, central_crc;
    std::optional<uint64_t> local_size, central_size;          // uncompressed
    std::optional<uint64_t> central_compressed;
    std::optional<uint16_t> central_method;
    std::optional<uint64_t> central_offset;                    // local header offset in the directory
    std::optional<std::string> raw_compressed;                 // use these bytes as the compressed data
};

struct ZipOptions {
    std::string trailing;          // bytes after the end record
    std::string prefix;            // bytes before the first entry
    std::string comment;
    bool zip64 = false;            // write ZIP64 end records (and per-entry extras)
    std::optional<uint64_t> cd_offset_delta;  // added to the directory offset in the end record
    std::optional<uint64_t> entry_count;      // the end record's entry count
};

std::string build_zip(const std::vector<ZipItem>& items, const ZipOptions& options = {});
// Raw deflate as a zip entry holds it; by default zlib's level 6, one Z_FINISH.
struct DeflateOptions {
    int level = 6;
    int strategy = 0;         // Z_DEFAULT_STRATEGY
    size_t flush_every = 0;   // > 0: a Z_FULL_FLUSH after each this many input bytes
};
std::string deflate_raw(const std::string& data, const DeflateOptions& options = {});

// A wheel: dist-info (METADATA, WHEEL, RECORD, entry_points.txt when given) added to `files`.
struct WheelSpec {
    std::string name = "demo";
    std::string version = "1.0";
    std::string tag = "py3-none-any";
    std::string wheel_version = "1.0";
    bool root_is_purelib = true;
    std::vector<ZipItem> files;                   // payload, as archive entries
    std::string entry_points;                     // entry_points.txt ("" = none)
    std::vector<std::string> requires_dist;
    std::string requires_python;
    std::string description;                      // METADATA's body, after its headers
    std::map<std::string, std::string> record_override;  // entry -> RECORD row text ("" drops the row)
    std::vector<std::string> record_extra_rows;
    ZipOptions zip;
    std::string filename() const;
};

std::string build_wheel_bytes(const WheelSpec& spec);
std::filesystem::path write_wheel(const WheelSpec& spec, const std::filesystem::path& dir);
// "sha256=<urlsafe b64>" of data.
std::string record_hash(const std::string& data);

}  // namespace envfix::test
