#pragma once
// Reading profiles/*.yaml with a schema: every error names the file and line and what was wrong
// (ExitCode::ProfileInvalid). For the profile loaders (matrix/, apps/) alone: it brings yaml-cpp's
// header, which no other header includes.
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::matrix::detail {

// Thrown inside the loader, turned into Expected's error at its boundary.
struct SchemaError {
    Error error;
};

inline constexpr int kProfileSchemaVersion = 1;

class YamlFile {
public:
    // Parses `text`; a syntax error throws SchemaError naming `display` and the line.
    YamlFile(std::string display, std::string_view text);
    const YAML::Node& root() const { return root_; }
    const std::string& display() const { return display_; }
    // 1-based line of a node (0 when yaml-cpp has no mark for it).
    static int line(const YAML::Node& n);
    [[noreturn]] void fail(const YAML::Node& at, std::string key, MessageArgs args = {}) const;
    [[noreturn]] void fail_at_line(int line, std::string key, MessageArgs args = {}) const;

private:
    std::string display_;
    YAML::Node root_;
};

// One mapping: unknown keys are errors; typed getters fail with the key's line.
class MapReader {
public:
    MapReader(const YamlFile& file, const YAML::Node& map, std::string where, std::initializer_list<std::string_view> allowed);
    const YamlFile& file() const { return file_; }
    const std::string& where() const { return where_; }
    const YAML::Node& node() const { return map_; }

    bool has(std::string_view key) const;
    YAML::Node get(std::string_view key) const;  // undefined node when absent
    YAML::Node required(std::string_view key) const;  // fails when absent
    std::string text(std::string_view key) const;  // required scalar
    std::optional<std::string> optional_text(std::string_view key) const;
    long long integer(std::string_view key) const;
    std::optional<long long> optional_integer(std::string_view key) const;
    bool boolean(std::string_view key, bool fallback) const;
    YAML::Node list(std::string_view key) const;  // required sequence
    YAML::Node optional_list(std::string_view key) const;
    YAML::Node mapping(std::string_view key) const;  // required mapping
    std::vector<std::string> text_list(std::string_view key) const;  // sequence of scalars

    // Scalar checks usable on any node of this map's file.
    std::string scalar(const YAML::Node& n, std::string_view field) const;
    [[noreturn]] void fail(const YAML::Node& at, std::string key, MessageArgs args = {}) const;

private:
    const YamlFile& file_;
    YAML::Node map_;
    std::string where_;
};

// The top-level mapping of a profile file: checks schema_version and the allowed keys.
MapReader open_profile(const YamlFile& file, std::initializer_list<std::string_view> allowed);

}  // namespace envfix::matrix::detail
