#pragma once
// Core metadata files (a wheel's or an installed distribution's METADATA, an sdist's PKG-INFO)
// and the other RFC 822-style files of a wheel (WHEEL): "Field: value" lines, continuation lines,
// multi-valued fields (Requires-Dist, Provides-Extra, Classifier, Tag ...), and the description
// as the body after the first blank line.
// Tolerant of what real files contain: CRLF or CR line ends, a UTF-8 byte order mark, fields in
// any case, old setuptools' indented "Description:" header, invalid UTF-8 (replaced by U+FFFD).
// Not of lines that are neither fields nor continuations before the blank line (Python's email
// parser starts the body there; here they are errors with their line number).
// Pure: the caller reads the file.
//
//   auto md = parse_core_metadata(text, "torch-2.7.0.dist-info/METADATA");
//   md->name, md->version, md->requires_dist, md->get_all("Provides-Extra")
//   auto wheel = parse_metadata_file(text, "torch-2.7.0.dist-info/WHEEL");
//   wheel->get_all("Tag"), wheel->get("Root-Is-Purelib")
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/standards/requirement.hpp"

namespace envfix::standards {

struct MetadataField {
    std::string name;  // as written ("Requires-Dist")
    std::string value;  // continuation lines joined with a space (Description: with newlines)
    size_t line = 0;  // 1-based line the field starts on
};

// Any RFC 822-style metadata file.
struct MetadataFile {
    std::string source;  // the name used in messages
    std::vector<MetadataField> fields;  // every field, in file order
    std::string body;  // text after the first blank line, "\n" line ends
    std::vector<size_t> invalid_utf8_lines;  // lines where bytes were replaced by U+FFFD

    // Field names compare case-insensitively.
    std::vector<std::string> get_all(std::string_view field) const;
    std::optional<std::string> get(std::string_view field) const;  // the first one
    const MetadataField* find(std::string_view field) const;
};

// Errors: ExitCode::BadInput with the source and line: "metadata.empty", "metadata.bad_line" (a
// header line without "Field:"), "metadata.continuation_first".
Expected<MetadataFile> parse_metadata_file(std::string_view text, std::string_view source);

struct CoreMetadata : MetadataFile {
    // The fields envfix reads most ("" / empty when absent; the first one when repeated).
    std::string metadata_version;
    std::string name;
    std::string version;  // as written; Version::parse() it where a PEP 440 version is needed
    std::string summary;
    std::string requires_python;
    std::string description;  // the body, else the Description field
    std::string description_content_type;
    std::vector<std::string> requires_dist;
    std::vector<std::string> provides_extra;
    std::vector<std::string> classifiers;
};

// parse_metadata_file()'s errors, and "metadata.duplicate_field" (Metadata-Version, Name or
// Version twice), "metadata.missing_field" (no Name or Version).
Expected<CoreMetadata> parse_core_metadata(std::string_view text, std::string_view source = "METADATA");

// Every Requires-Dist parsed. The first invalid one fails: ExitCode::BadInput,
// "metadata.bad_requirement" with source, line, text and column.
Expected<std::vector<Requirement>> parse_requires_dist(const CoreMetadata& metadata);

}  // namespace envfix::standards
