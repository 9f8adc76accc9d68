#pragma once
// A strict reader of ZIP archives (wheels): the end record, ZIP64, the central directory and
// every local header, checked against each other before any byte is extracted. The one reader of
// a wheel's directory: the planner reads a remote wheel's tail with read_zip_central, the
// installer the whole archive with read_zip_directory (its entries' bytes:
// envfix/wheel/zip_read.hpp). Works on bytes in memory (a mapped file). Pure: no file access.
//
// Refused (ExitCode::BadWheel, key "zip.malformed" with a reason, or the keys named here):
// no end record or bytes after it; more than one disk; a central directory outside the file,
// with a wrong size or entry count; names with control characters or NUL; encrypted entries;
// methods other than stored (0), deflate (8), bzip2 (12), LZMA (14), zstd (93), xz (95)
// ("zip.method"); local headers that disagree
// with the central directory (name, method, flags, CRC, sizes; data descriptors checked too)
// ("zip.header_mismatch"); entries whose data overlap or run into the central directory;
// declared sizes deflate cannot produce (more than 1032 times the compressed size) or over the
// limits ("zip.too_large"); data that inflates to another size or CRC than declared
// ("zip.data_mismatch").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::wheel {

struct ZipLimits {
    uint64_t max_entry_size = 64ull << 30;  // one file
    uint64_t max_total_size = 256ull << 30;  // the whole archive, uncompressed
    uint64_t max_entries = 1'000'000;
};

struct ZipEntry {
    std::string name;  // UTF-8 (CP437 names are converted, as Python's zipfile does)
    uint16_t method = 0;  // 0 stored, 8 deflate
    uint16_t flags = 0;  // general purpose bits
    uint32_t crc32 = 0;
    uint64_t compressed_size = 0;
    uint64_t size = 0;  // uncompressed
    uint64_t local_header_offset = 0;
    uint64_t data_offset = 0;  // first byte of the (compressed) data
    uint32_t external_attr = 0;
    uint8_t made_by_host = 0;  // "version made by" high byte: 0 MS-DOS, 3 Unix, ...

    bool is_directory() const;  // name ends with "/"
    uint32_t unix_mode() const { return external_attr >> 16; }
    bool is_symlink() const;  // Unix mode S_IFLNK
    bool is_special() const;  // Unix mode of a FIFO, device or socket
    // pip's rule (zip_item_is_executable): a regular-file Unix mode with any x bit.
    bool is_executable() const;
};

struct ZipDirectory {
    std::vector<ZipEntry> entries;  // central directory order
    uint64_t total_size = 0;  // sum of uncompressed sizes
};

// Why libarchive, which reads a wheel's bzip2, LZMA and zstd entries (deflate is zlib's), cannot
// be used here ("libarchive.so.13 could not be loaded: …"); nullptr where it can.
const std::string* archive_load_error();

// The central directory with every local header checked. `source` names the archive in errors.
Expected<ZipDirectory> read_zip_directory(std::string_view archive, std::string_view source, const ZipLimits& limits = {});

// The end record and the central directory alone, from the archive's last bytes: `tail` holds
// bytes [tail_offset, tail_offset + tail.size()) of a file that ends there. For a reader that
// starts before the rest of the archive is there (a wheel still downloading): nothing of the
// local headers is checked (every data_offset is 0), so it is a plan, never a license to trust
// the entries; read_zip_directory checks the whole. When the directory (or the end record's
// comment, or the ZIP64 record) starts before the tail, need_from says where to start instead.
struct ZipCentral {
    ZipDirectory dir;
    uint64_t cd_offset = 0;  // where the directory starts in the file
    std::optional<uint64_t> need_from;  // give the bytes from here on instead
    std::vector<std::string_view> raw_names;  // the names as stored, views into `tail`
};
Expected<ZipCentral> read_zip_central(std::string_view tail, uint64_t tail_offset, std::string_view source, const ZipLimits& limits = {});

}  // namespace envfix::wheel
