#pragma once
// Installed distributions of an environment: every `*.dist-info` folder of its site-packages
// folders (PEP 376 / "Recording installed projects") and, as pip reads them, the legacy
// `*.egg-info` folders and files of setuptools installs (PKG-INFO + requires.txt), read without
// importing anything. Used by doctor, check, plan (what is already satisfied) and the installer
// (what to remove).
//
//   auto set = read_installed(env.site_packages);          // Expected<InstalledSet>
//   if (auto* torch = set->find("torch")) torch->version;   // "2.7.0+cu128"
//   auto rec = read_record(*torch);                         // the files it installed
//   // only some names, headers only (doctor: torch and its CUDA libraries, in a few ms)
//   read_installed(sp, {.only = [](std::string_view n) { return n == "torch"; }, .headers_only = true});
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/standards/core_metadata.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::standards {

struct InstalledDist {
    std::string name;  // as METADATA writes it
    std::string canonical_name;  // PEP 503
    std::string version;  // as written
    std::optional<Version> parsed_version;  // nullopt: not a PEP 440 version
    std::filesystem::path dist_info;  // ".../site-packages/torch-2.7.0+cu128.dist-info"
    std::filesystem::path site_packages;  // the folder holding it
    CoreMetadata metadata;  // empty fields when `problem` is set
    std::string installer;  // INSTALLER's first line ("pip", "uv", "envfix"), "" when absent
    bool requested = false;  // REQUESTED present
    bool has_record = false;  // RECORD present (needed to uninstall)
    std::optional<std::string> direct_url;  // direct_url.json text (PEP 610), when present
    std::optional<Error> problem;  // METADATA missing or unreadable: the dist is broken
    bool egg_info = false;  // a legacy *.egg-info (folder or file): metadata from PKG-INFO and
        // requires.txt; `dist_info` is its path; no RECORD
};

struct InstalledSet {
    std::vector<InstalledDist> dists;  // sorted by canonical name, then by folder
    // The first distribution with this (any spelling of the) name, or nullptr.
    const InstalledDist* find(std::string_view name) const;
    // Every distribution with this name: more than one means duplicate dist-info folders.
    std::vector<const InstalledDist*> find_all(std::string_view name) const;
};

struct ReadInstalledOptions {
    // Only entries whose name, as the folder name gives it (PEP 503-normalised), this accepts
    // are read; empty: every one. Nothing else of the others is opened.
    std::function<bool(std::string_view canonical_name)> only;
    // Parse METADATA's header part only (the long description is skipped): metadata.description
    // and .body stay empty. Requires-Dist and every other field are read.
    bool headers_only = false;
    bool egg_info = true;  // also *.egg-info folders and files
    // INSTALLER, REQUESTED and direct_url.json; false: left unread (installer, requested and
    // direct_url stay empty), three files fewer per distribution where only requirements matter.
    bool details = true;
};

// The folders of `site_packages` that exist, each once (purelib and platlib are often the same
// folder, under two names), in their order: those read_installed reads.
std::vector<std::filesystem::path> distinct_folders(const std::vector<std::filesystem::path>& site_packages);

// Reads every `*.dist-info` folder (and `*.egg-info`, see ReadInstalledOptions) directly inside
// each of `site_packages` (missing folders are skipped: a fresh environment may lack platlib). A
// broken one is kept with `problem` set rather than failing the whole read.
Expected<InstalledSet> read_installed(const std::vector<std::filesystem::path>& site_packages);
Expected<InstalledSet> read_installed(const std::vector<std::filesystem::path>& site_packages, const ReadInstalledOptions& options);
// One dist-info folder.
InstalledDist read_dist_info(const std::filesystem::path& dist_info);
InstalledDist read_dist_info(const std::filesystem::path& dist_info, const ReadInstalledOptions& options);
// One egg-info folder (PKG-INFO, requires.txt) or file (the PKG-INFO text itself).
InstalledDist read_egg_info(const std::filesystem::path& egg_info, const ReadInstalledOptions& options = {});

// The name part of a "*.dist-info" / "*.egg-info" entry name, PEP 503-normalised
// ("Foo_Bar-1.0.dist-info" -> "foo-bar"); "" for other names.
std::string installed_entry_name(std::string_view entry_name);

// requires.txt of an egg-info as Requires-Dist strings, the way pip converts them: a
// "[extra:marker]" section adds `extra == "..."` (and the marker) to its lines. Pure.
std::vector<std::string> egg_info_requirements(std::string_view requires_txt);
// The header part of an RFC 822-style metadata text: everything before the first blank line.
std::string_view metadata_headers(std::string_view text);

// One row of RECORD: path relative to the site-packages folder (forward slashes, as written),
// hash ("sha256=<urlsafe-b64-nopad>" split into algorithm and digest; empty for RECORD itself
// and for .pyc files some installers list without a hash), and size.
struct RecordEntry {
    std::string path;
    std::string hash_algorithm;  // "sha256", "" when none
    std::string hash_digest;  // urlsafe base64 without padding, as written
    std::optional<uint64_t> size;
};

// RECORD is CSV in Python's default csv dialect: fields may be quoted ("a,b.py"), quotes inside
// doubled. Errors: ExitCode::BadInput, "record.bad_row" with source and line.
Expected<std::vector<RecordEntry>> parse_record(std::string_view text, std::string_view source);
// The RECORD of an installed distribution.
Expected<std::vector<RecordEntry>> read_record(const InstalledDist& dist);
// Writes RECORD rows the way pip does (quoting only where needed, "\n" line ends).
std::string format_record(const std::vector<RecordEntry>& rows);
// The same rows as views of strings held elsewhere (an install's 17 000 rows, not copied).
struct RecordRowView {
    std::string_view path, hash_algorithm, hash_digest;
    std::optional<uint64_t> size;
};
std::string format_record(const std::vector<RecordRowView>& rows);

}  // namespace envfix::standards
