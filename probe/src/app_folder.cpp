// Recognising app folders by their marker files, and where their environments are.
#include "envfix/probe/app_folder.hpp"

#include <cctype>
#include <set>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

namespace {

bool present(const stdfs::path& p) {
    std::error_code ec;
    return stdfs::exists(p, ec);
}

bool fits(const AppLayoutSpec& l, const stdfs::path& dir) {
    for (const auto& m : l.markers)
        if (!present(profile_path(dir, m))) return false;
    for (const auto& a : l.absent)
        if (present(profile_path(dir, a))) return false;
    return true;
}

// "%~dp0venv" in a .bat file is the file's own folder; "$(pwd)" and other expansions are not
// followed (the setting is then ignored).
std::optional<stdfs::path> setting_dir(const stdfs::path& code_dir, const std::string& value, bool bat) {
    std::string v = value;
    if (bat) {
        for (const char* dp0 : {"%~dp0", "%~DP0"}) {
            if (v.starts_with(dp0)) {
                v = v.substr(5);
                while (!v.empty() && (v[0] == '\\' || v[0] == '/' || v[0] == '%')) v.erase(0, 1);
            }
        }
        if (v.find('%') != std::string::npos) return std::nullopt;
        v = str::replace_all(v, "\\", "/");
    } else if (v.find('$') != std::string::npos || v.find('`') != std::string::npos) {
        return std::nullopt;
    }
    stdfs::path p(v);
    if (p.is_absolute() || (v.size() > 2 && v[1] == ':')) return p;
    return profile_path(code_dir, v);
}

}  // namespace

stdfs::path profile_path(const stdfs::path& dir, std::string_view rel) {
    stdfs::path out = dir;
    for (auto part : str::split(rel, '/'))
        if (!part.empty() && part != ".") out /= std::string(part);
    return out.lexically_normal();
}

bool AppSignature::answers_to(std::string_view n) const {
    if (str::iequals(name, n)) return true;
    for (const auto& a : aliases)
        if (str::iequals(a, n)) return true;
    return false;
}

const AppSignature* find_signature(const std::vector<AppSignature>& apps, std::string_view name) {
    for (const auto& a : apps)
        if (a.answers_to(name)) return &a;
    return nullptr;
}

std::vector<AppFolderMatch> match_app_folder(const stdfs::path& dir_in, const std::vector<AppSignature>& apps,
                                             const AppSignature* only) {
    std::vector<AppFolderMatch> out;
    const auto dir = absolute_normal(dir_in);
    std::error_code ec;
    if (!stdfs::is_directory(dir, ec)) return out;
    for (const auto& app : apps) {
        if (only && &app != only) continue;
        for (const auto& layout : app.layouts)
            if (fits(layout, dir)) out.push_back({&app, &layout, dir});
    }
    return out;
}

std::optional<std::string> parse_venv_setting(std::string_view text, std::string_view key, bool bat) {
    std::optional<std::string> value;
    for (auto raw : str::split(text, '\n')) {
        auto line = str::trim(raw);
        if (bat) {
            // REM and :: comments; "set NAME=value" or set "NAME=value"; "if not defined X set X=..."
            std::string lower = str::lower(line);
            if (lower.starts_with("rem ") || lower == "rem" || lower.starts_with("::") || lower.starts_with("@rem")) continue;
            auto at = lower.find("set ");
            while (at != std::string::npos && at > 0 && std::isalnum(static_cast<unsigned char>(lower[at - 1])))
                at = lower.find("set ", at + 1);
            if (at == std::string::npos) continue;
            auto rest = str::trim(line.substr(at + 4));
            bool quoted = !rest.empty() && rest[0] == '"';
            if (quoted) rest = rest.substr(1);
            auto eq = rest.find('=');
            if (eq == std::string_view::npos || !str::iequals(str::trim(rest.substr(0, eq)), key)) continue;
            auto v = rest.substr(eq + 1);
            if (quoted) v = v.substr(0, v.rfind('"'));  // `(set "X=v")`: the quote ends the value
            value = std::string(str::trim(v));
        } else {
            if (line.empty() || line[0] == '#') continue;
            if (line.starts_with("export ")) line = str::trim(line.substr(7));
            auto eq = line.find('=');
            if (eq == std::string_view::npos || line.substr(0, eq) != key) continue;
            auto v = str::trim(line.substr(eq + 1));
            // A trailing comment after an unquoted value.
            if (!v.empty() && v[0] != '"' && v[0] != '\'') {
                auto hash = v.find(" #");
                if (hash != std::string_view::npos) v = str::trim(v.substr(0, hash));
            }
            if (v.size() >= 2 && (v[0] == '"' || v[0] == '\'') && v.back() == v[0]) v = v.substr(1, v.size() - 2);
            value = std::string(v);
        }
    }
    if (!value || value->empty() || *value == "-") return std::nullopt;
    return value;
}

std::vector<stdfs::path> environment_dirs(const AppFolderMatch& m) {
    std::vector<stdfs::path> out;
    std::set<stdfs::path> seen;
    auto add = [&](const stdfs::path& p) {
        if (seen.insert(p).second) out.push_back(p);
    };
    const auto code = profile_path(m.folder, m.layout->code);
    for (const auto& s : m.layout->venv_settings) {
        auto text = fs::read_file(profile_path(code, s.file));
        if (!text) continue;
        const bool bat = str::lower(stdfs::path(s.file).extension().string()) == ".bat";
        if (auto v = parse_venv_setting(*text, s.key, bat))
            if (auto dir = setting_dir(code, *v, bat)) add(dir->lexically_normal());
    }
    for (const auto& e : m.layout->environments) add(profile_path(m.folder, e));
    return out;
}

std::vector<stdfs::path> all_environment_dirs(const AppSignature& app, const stdfs::path& dir) {
    std::vector<stdfs::path> out;
    std::set<stdfs::path> seen;
    const auto folder = absolute_normal(dir);
    // Only inside the folder: a layout's "../python_embeded" is known to be right only where the
    // layout's markers matched.
    for (const auto& layout : app.layouts)
        for (const auto& p : environment_dirs({&app, &layout, folder}))
            if (p.lexically_relative(folder).string().starts_with("..") ? false : seen.insert(p).second) out.push_back(p);
    return out;
}

}  // namespace envfix::probe
