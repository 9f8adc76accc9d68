#include "envfix/matrix/yaml_schema.hpp"

#include <algorithm>
#include <charconv>

namespace envfix::matrix::detail {

namespace {
std::string kind_of(const YAML::Node& n) {
    if (n.IsSequence()) return "list";
    if (n.IsMap()) return "map";
    return "scalar";
}
}  // namespace

YamlFile::YamlFile(std::string display, std::string_view text) : display_(std::move(display)) {
    try {
        root_ = YAML::Load(std::string(text));
    } catch (const YAML::ParserException& e) {
        fail_at_line(e.mark.line + 1, "profiles.yaml_syntax", {{"detail", e.msg}});
    }
}

int YamlFile::line(const YAML::Node& n) {
    auto m = n.Mark();
    return m.line < 0 ? 0 : m.line + 1;
}

void YamlFile::fail(const YAML::Node& at, std::string key, MessageArgs args) const { fail_at_line(line(at), std::move(key), args); }

void YamlFile::fail_at_line(int line, std::string key, MessageArgs args) const {
    Message m = msg(std::move(key), args);
    m.with("file", display_).with("line", std::to_string(line));
    throw SchemaError{Error{ExitCode::ProfileInvalid, std::move(m)}};
}

MapReader::MapReader(const YamlFile& file, const YAML::Node& map, std::string where, std::initializer_list<std::string_view> allowed)
    : file_(file), map_(map), where_(std::move(where)) {
    if (!map_.IsMap()) file_.fail(map_, "profiles.want_map", {{"where", where_}, {"found", kind_of(map_)}});
    for (const auto& kv : map_) {
        std::string k = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
        if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
            file_.fail(kv.first, "profiles.unknown_field", {{"where", where_}, {"field", k}});
    }
}

bool MapReader::has(std::string_view key) const { return static_cast<bool>(map_[std::string(key)]); }

YAML::Node MapReader::get(std::string_view key) const { return map_[std::string(key)]; }

YAML::Node MapReader::required(std::string_view key) const {
    YAML::Node n = map_[std::string(key)];
    if (!n) file_.fail(map_, "profiles.missing_field", {{"where", where_}, {"field", std::string(key)}});
    return n;
}

std::string MapReader::scalar(const YAML::Node& n, std::string_view field) const {
    if (!n.IsScalar() || n.Scalar().empty()) file_.fail(n, "profiles.want_text", {{"where", where_}, {"field", std::string(field)}});
    return n.Scalar();
}

std::string MapReader::text(std::string_view key) const { return scalar(required(key), key); }

std::optional<std::string> MapReader::optional_text(std::string_view key) const {
    if (!has(key)) return std::nullopt;
    return text(key);
}

long long MapReader::integer(std::string_view key) const {
    YAML::Node n = required(key);
    std::string s = n.IsScalar() ? n.Scalar() : std::string();
    long long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size())
        file_.fail(n, "profiles.want_number", {{"where", where_}, {"field", std::string(key)}, {"value", s}});
    return v;
}

std::optional<long long> MapReader::optional_integer(std::string_view key) const {
    if (!has(key)) return std::nullopt;
    return integer(key);
}

bool MapReader::boolean(std::string_view key, bool fallback) const {
    if (!has(key)) return fallback;
    YAML::Node n = get(key);
    std::string s = n.IsScalar() ? n.Scalar() : std::string();
    if (s == "true") return true;
    if (s == "false") return false;
    file_.fail(n, "profiles.want_bool", {{"where", where_}, {"field", std::string(key)}, {"value", s}});
}

YAML::Node MapReader::list(std::string_view key) const {
    YAML::Node n = required(key);
    if (!n.IsSequence()) file_.fail(n, "profiles.want_list", {{"where", where_}, {"field", std::string(key)}});
    return n;
}

YAML::Node MapReader::optional_list(std::string_view key) const {
    if (!has(key)) return YAML::Node(YAML::NodeType::Sequence);
    return list(key);
}

YAML::Node MapReader::mapping(std::string_view key) const {
    YAML::Node n = required(key);
    if (!n.IsMap()) file_.fail(n, "profiles.want_map", {{"where", where_ + "/" + std::string(key)}, {"found", kind_of(n)}});
    return n;
}

std::vector<std::string> MapReader::text_list(std::string_view key) const {
    std::vector<std::string> out;
    for (const auto& item : list(key)) out.push_back(scalar(item, key));
    return out;
}

void MapReader::fail(const YAML::Node& at, std::string key, MessageArgs args) const {
    Message m = msg(std::move(key), args);
    m.with("where", where_).with("file", file_.display()).with("line", std::to_string(YamlFile::line(at)));
    throw SchemaError{Error{ExitCode::ProfileInvalid, std::move(m)}};
}

MapReader open_profile(const YamlFile& file, std::initializer_list<std::string_view> allowed) {
    const YAML::Node& root = file.root();
    if (!root || root.IsNull()) file.fail_at_line(1, "profiles.empty_file");
    if (!root.IsMap()) file.fail(root, "profiles.want_map", {{"where", "/"}, {"found", kind_of(root)}});
    YAML::Node v = root["schema_version"];
    if (!v) file.fail_at_line(1, "profiles.no_schema_version");
    std::string s = v.IsScalar() ? v.Scalar() : std::string();
    if (s != std::to_string(kProfileSchemaVersion))
        file.fail(v, "profiles.schema_version", {{"found", s}, {"supported", std::to_string(kProfileSchemaVersion)}});
    return MapReader(file, root, "/", allowed);
}

}  // namespace envfix::matrix::detail
