#pragma once
// A wheel file opened for installation (PEP 427 / binary distribution format): mapped, its zip
// directory checked (zip.hpp), its .dist-info found and read (WHEEL, METADATA, RECORD,
// entry_points.txt), and every entry checked against RECORD and the path rules before a byte
// is written anywhere.
//
//   auto w = open_wheel("pip-24.2-py3-none-any.whl", reporter);   // Expected<WheelFile>
//   w->metadata.name; w->files (entries to install); w->record_row[i] (its RECORD row)
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/standards/core_metadata.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/wheel_name.hpp"
#include "envfix/wheel/zip_read.hpp"

namespace envfix::installer {

struct WheelFile {
    std::filesystem::path path;
    standards::WheelName name;  // from the file name
    std::optional<fs::MappedFile> map;   // the archive's bytes
    wheel::ZipDirectory zip;
    std::string dist_info;               // "pip-24.2.dist-info" (as in the archive)
    std::string data_dir;                // "pip-24.2.data" ("" when the wheel has none)
    standards::CoreMetadata metadata;
    std::string metadata_text;           // METADATA as in the archive (kept with the directory)
    std::string wheel_version;           // WHEEL's Wheel-Version, "1.0"
    bool root_is_purelib = true;
    std::vector<standards::RecordEntry> record;  // the wheel's RECORD rows
    std::vector<int> record_row;         // per zip entry: its row in `record`, -1 when none
    std::string entry_points;            // entry_points.txt ("" when absent)
    std::vector<size_t> files;           // zip entries to install, in archive order
    std::vector<Message> warnings;       // said once the wheel is installed (skipped __pycache__, ...)
    // Read from its kept directory instead (wheel_directory.hpp): the file is mapped only when an
    // entry's bytes are needed (a cached file gone, inflated from the wheel), once, on any thread.
    struct LazyMap {
        std::filesystem::path path;
        std::once_flag once;
        std::optional<fs::MappedFile> map;
    };
    std::shared_ptr<LazyMap> lazy;

    // The archive's bytes; empty when a lazily mapped file cannot be read (its entries then fail
    // as a damaged archive would).
    std::string_view bytes() const;
    std::string source() const { return path.filename().string(); }  // how messages name it
};

// ExitCode::BadWheel for anything unsafe or inconsistent (keys "wheel.*", "zip.*"),
// NotInstallable for source distributions, BadInput when the file cannot be read or its
// name is not a wheel's. Every message names the file.
Expected<WheelFile> open_wheel(const std::filesystem::path& file);

// The path rules every archive entry passes (pure): relative, "/"-separated, no "." or ".."
// component, no empty component, no backslash, no ":" (drive letters, NTFS streams), not under
// a folder named ".envfix*" at the top (envfix's own staging names). nullopt when fine, else
// why not (English, for the message's {reason}).
std::optional<std::string> unsafe_entry_name(std::string_view name);

// Whether a "{name}-{version}" folder stem (of .dist-info or .data) belongs to the wheel.
bool wheel_folder_matches(std::string_view stem, const standards::WheelName& w);

// Hash rows RECORD may use: "sha256", "sha384", "sha512" (md5 and sha1 are refused).
bool record_hash_supported(std::string_view algorithm);

}  // namespace envfix::installer
