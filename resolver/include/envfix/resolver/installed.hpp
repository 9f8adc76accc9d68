#pragma once
// Installed distributions of an environment: every `*.dist-info` folder of its site-packages
// folders (PEP 376 / "Recording installed projects"), read without importing anything.
// Used by doctor, check, plan (what is already satisfied) and the installer (what to remove).
//
//   auto set = read_installed(env.site_packages);          // Expected<InstalledSet>
//   if (auto* torch = set->find("torch")) torch->version;   // "2.7.0+cu128"
//   auto rec = read_record(*torch);                         // the files it installed
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/resolver/core_metadata.hpp"
#include "envfix/resolver/version.hpp"

namespace envfix::resolver {

struct InstalledDist {
    std::string name;            // as METADATA writes it
    std::string canonical_name;  // PEP 503
    std::string version;         // as written
    std::optional<Version> parsed_version;  // nullopt: not a PEP 440 version
    std::filesystem::path dist_info;        // ".../site-packages/torch-2.7.0+cu128.dist-info"
    std::filesystem::path site_packages;    // the folder holding it
    CoreMetadata metadata;       // empty fields when `problem` is set
    std::string installer;       // INSTALLER's first line ("pip", "uv", "envfix"), "" when absent
    bool requested = false;      // REQUESTED present
    bool has_record = false;     // RECORD present (needed to uninstall)
    std::optional<std::string> direct_url;  // direct_url.json text (PEP 610), when present
    std::optional<Error> problem;           // METADATA missing or unreadable: the dist is broken
};

struct InstalledSet {
    std::vector<InstalledDist> dists;  // sorted by canonical name, then by folder
    // The first distribution with this (any spelling of the) name, or nullptr.
    const InstalledDist* find(std::string_view name) const;
    // Every distribution with this name: more than one means duplicate dist-info folders.
    std::vector<const InstalledDist*> find_all(std::string_view name) const;
};

// Reads every `*.dist-info` folder directly inside each of `site_packages` (missing folders are
// skipped: a fresh environment may lack platlib). A broken dist-info is kept with `problem` set
// rather than failing the whole read.
Expected<InstalledSet> read_installed(const std::vector<std::filesystem::path>& site_packages);
// One dist-info folder.
InstalledDist read_dist_info(const std::filesystem::path& dist_info);

// One row of RECORD: path relative to the site-packages folder (forward slashes, as written),
// hash ("sha256=<urlsafe-b64-nopad>" split into algorithm and digest; empty for RECORD itself
// and for .pyc files some installers list without a hash), and size.
struct RecordEntry {
    std::string path;
    std::string hash_algorithm;  // "sha256", "" when none
    std::string hash_digest;     // urlsafe base64 without padding, as written
    std::optional<uint64_t> size;
};

// RECORD is CSV in Python's default csv dialect: fields may be quoted ("a,b.py"), quotes inside
// doubled. Errors: ExitCode::BadInput, "record.bad_row" with source and line.
Expected<std::vector<RecordEntry>> parse_record(std::string_view text, std::string_view source);
// The RECORD of an installed distribution.
Expected<std::vector<RecordEntry>> read_record(const InstalledDist& dist);
// Writes RECORD rows the way pip does (quoting only where needed, "\n" line ends).
std::string format_record(const std::vector<RecordEntry>& rows);

}  // namespace envfix::resolver
