// Destinations of a wheel's files and the files installing it generates (wheel_plan.hpp).
#include "envfix/installer/wheel_plan.hpp"

#include <map>
#include <optional>
#include <span>
#include <set>
#include <unordered_map>

#include "envfix/common/fs.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/scripts.hpp"
#include "envfix/network/url.hpp"
#include "envfix/standards/names.hpp"
#include "launchers.hpp"
#include "path_under.hpp"
#include "tx_internal.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

// Python's json.dumps(ensure_ascii=True) for a string.
std::string json_string(std::string_view s) {
    std::string out = "\"";
    auto hex4 = [&](unsigned v) {
        static const char* d = "0123456789abcdef";
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out += d[(v >> shift) & 15];
    };
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
            ++i;
        } else if (c == '\n') { out += "\\n"; ++i; }
        else if (c == '\r') { out += "\\r"; ++i; }
        else if (c == '\t') { out += "\\t"; ++i; }
        else if (c < 0x20 || c == 0x7F) { hex4(c); ++i; }
        else if (c < 0x80) { out += static_cast<char>(c); ++i; }
        else {
            size_t n = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
            unsigned cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
            for (size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                hex4(0xD800 + (cp >> 10));
                hex4(0xDC00 + (cp & 0x3FF));
            } else {
                hex4(cp);
            }
            i += n;
        }
    }
    return out + "\"";
}

const char* const kSchemeKeys[] = {"purelib", "platlib", "headers", "scripts", "data"};

}  // namespace

Expected<InstallScheme> install_scheme(const probe::Environment& env) {
    const auto& f = env.facts;
    if (f.purelib.empty() || f.platlib.empty() || f.scripts.empty() || f.data.empty())
        return fail(ExitCode::EnvBroken, "install.no_scheme", {{"path", env.root.string()}});
    InstallScheme s{f.purelib, f.platlib, f.scripts, f.data, f.include};
    bool venv = env.kind == probe::EnvKind::Venv || (!f.base_prefix.empty() && f.prefix != f.base_prefix);
    if (venv)  // pip's header folder in virtual environments
        s.headers_root = stdfs::path(f.data) / "include" / "site" / ("python" + std::to_string(f.major) + "." + std::to_string(f.minor));
    return s;
}

std::vector<stdfs::path> environment_areas(const probe::Environment& env) {
    std::vector<stdfs::path> areas;
    if (auto s = install_scheme(env)) areas = {s->purelib, s->platlib, s->scripts, s->data, s->headers_root};
    areas.push_back(env.root);
    for (auto& a : areas) a = a.lexically_normal();
    return areas;
}

ScriptTarget script_target(const probe::Environment& env, const InstallScheme& scheme) {
    ScriptTarget t;
    t.interpreter = env.facts.executable.empty() ? env.interpreter.string() : env.facts.executable;
    t.layout = env.layout_os;
    t.python_major = env.facts.major;
    t.python_minor = env.facts.minor;
    auto rel = stdfs::path(t.interpreter).lexically_relative(scheme.scripts);
    t.interpreter_from_scripts = rel.empty() ? t.interpreter : str::replace_all(rel.generic_string(), "/", "\\");
    if (env.layout_os == probe::LayoutOs::Windows) {
        const auto distlib = scheme.purelib / "pip/_vendor/distlib";
        const std::string arm = platform::machine() == "aarch64" ? "-arm" : "";
        constexpr uint64_t kMost = 4 << 20;  // distlib's launchers are about 100 KiB
        if (auto t64 = fs::read_file(distlib / ("t64" + arm + ".exe"), kMost)) t.console_launcher = std::move(*t64);
        if (auto w64 = fs::read_file(distlib / ("w64" + arm + ".exe"), kMost)) t.gui_launcher = std::move(*w64);
    }
    return t;
}

std::string record_path_for(const stdfs::path& dest, const stdfs::path& lib_dir) {
    // Most files lie under lib_dir: a string prefix answers without lexically_relative's
    // component walk (17 000 times for a torch stack). Paths with "." parts take the long way.
    const std::string d = dest.generic_string();
    const std::string base = lib_dir.generic_string();
    if (!base.empty() && base.back() != '/' && d.size() > base.size() + 1 && d[base.size()] == '/' &&
        d.compare(0, base.size(), base) == 0 && d.find("/.", base.size()) == std::string::npos)
        return d.substr(base.size() + 1);
    auto rel = dest.lexically_relative(lib_dir);
    if (rel.empty()) return dest.generic_string();
    return rel.generic_string();
}

std::string file_url(const stdfs::path& absolute) {
    // pathlib's as_uri(): every segment percent-encoded, "/" kept; a drive letter stays as is.
    std::string path = absolute.generic_string();
    std::string out = "file://";
    if (path.size() >= 2 && path[1] == ':') {  // C:/x -> file:///C:/x
        out += "/" + path.substr(0, 2);
        path = path.substr(2);
    }
    std::vector<std::string> parts;
    for (auto seg : str::split(path, '/')) parts.push_back(network::percent_encode_segment(seg));
    return out + str::join(parts, "/");
}

std::string direct_url_json(std::string_view url, std::string_view sha256_hex) {
    std::string h(sha256_hex);
    return "{\"archive_info\": {\"hash\": \"sha256=" + h + "\", \"hashes\": {\"sha256\": \"" + h + "\"}}, \"url\": " +
           json_string(url) + "}";
}

size_t extracted_files(const WheelPlan& plan) {
    return static_cast<size_t>(std::count_if(plan.files.begin(), plan.files.end(), [](const PlannedFile& f) {
        return f.kind == PlannedFile::Kind::Extracted;
    }));
}

Expected<WheelPlan> plan_wheel(const WheelFile& wheel, const InstallScheme& scheme, const ScriptTarget& target,
                               const WheelOptions& options) {
    WheelPlan plan;
    plan.name = wheel.metadata.name;
    plan.canonical_name = standards::canonicalize_name(wheel.metadata.name);
    plan.version = wheel.metadata.version;
    plan.lib_dir = wheel.root_is_purelib ? scheme.purelib : scheme.platlib;
    plan.dist_info = plan.lib_dir / wheel.dist_info;
    plan.direct_url = options.direct_url;
    plan.warnings = wheel.warnings;
    plan.files.reserve(wheel.files.size() + 4);  // + INSTALLER, REQUESTED, launchers: no doubling copy of 13 000
    const std::string src = wheel.source();

    std::vector<EntryPoint> eps;
    if (!wheel.entry_points.empty()) {
        ENVFIX_TRY(eps, parse_entry_points(wheel.entry_points, src + ":" + wheel.dist_info + "/entry_points.txt"));
    }
    auto is_entry_point_wrapper = [&](std::string leaf) {
        // setuptools also writes EP, EP.exe and EP-script.py for entry point EP; pip skips them.
        std::string l = str::lower(leaf);
        if (l.ends_with(".exe") || l.ends_with(".pya")) leaf.resize(leaf.size() - 4);
        else if (l.ends_with("-script.py")) leaf.resize(leaf.size() - 10);
        return std::any_of(eps.begin(), eps.end(), [&](const EntryPoint& e) { return e.name == leaf; });
    };

    // Later files win where two land on one path (a .data/purelib file over a root file), as in pip.
    // Root files need no lookup where nothing else can land on one (torch's 12 000): the archive
    // names them once each, INSTALLER and REQUESTED replace entries that are skipped, and only a
    // .data folder, or launchers in a scripts folder under the library folder, could.
    const bool roots_alone = wheel.data_dir.empty() && !path_under(normal_path(scheme.scripts), normal_path(plan.lib_dir), true);
    std::unordered_map<stdfs::path::string_type, size_t> by_dest;
    if (!roots_alone) by_dest.reserve(wheel.files.size() + 8);
    auto add = [&](PlannedFile f, bool root = false) {
        if (f.record_path.empty()) f.record_path = record_path_for(stdfs::path(f.dest), plan.lib_dir);
        if (root && roots_alone) {
            plan.files.push_back(std::move(f));
            return;
        }
        auto [it, inserted] = by_dest.emplace(f.dest, plan.files.size());
        if (inserted) plan.files.push_back(std::move(f));
        else plan.files[it->second] = std::move(f);
    };

    const std::string data_prefix = wheel.data_dir.empty() ? std::string() : wheel.data_dir + "/";
    // Files that describe an installation, not the distribution (a wheel repacked from an
    // installed environment carries them): this installation writes its own.
    const std::set<std::string> install_records = {wheel.dist_info + "/INSTALLER", wheel.dist_info + "/REQUESTED",
                                                   wheel.dist_info + "/direct_url.json"};
    // A wheel of only root files (torch: 12 000) planned in pieces on several threads, in order:
    // torch's plan was the longest single piece of a warm install's planning.
    constexpr size_t kPiece = 2048;
    // A root file's destination is the library folder and a safe entry name (no empty, "." or ".."
    // part): lexically normal where that folder is, which the install then need not check for
    // each of torch's 12 000 (POSIX; Windows paths are always normalised).
    const bool lib_normal = plainly_normal_path(plan.lib_dir);
    const bool in_pieces = roots_alone && wheel.files.size() >= 2 * kPiece;
    if (in_pieces) {
        std::vector<std::optional<PlannedFile>> made(wheel.files.size());
        tx::parallel_for((wheel.files.size() + kPiece - 1) / kPiece, [&](size_t piece) {
            const size_t end = std::min(wheel.files.size(), (piece + 1) * kPiece);
            for (size_t k = piece * kPiece; k < end; ++k) {
                const wheel::ZipEntry& e = wheel.zip.entries[wheel.files[k]];
                if (install_records.count(e.name)) continue;
                auto& f = made[k].emplace();
                f.entry = wheel.files[k];
                f.executable = e.is_executable();
                f.dest = join_generic_text(plan.lib_dir, e.name);
                f.dest_normal = lib_normal;
                f.record_path = e.name;
            }
        }, 1);
        for (auto& f : made)
            if (f) plan.files.push_back(std::move(*f));
    }
    for (size_t idx : in_pieces ? std::span<const size_t>() : std::span<const size_t>(wheel.files)) {
        const wheel::ZipEntry& e = wheel.zip.entries[idx];
        if (install_records.count(e.name)) continue;
        PlannedFile f;
        f.entry = idx;
        f.executable = e.is_executable();
        if (!data_prefix.empty() && e.name.starts_with(data_prefix)) {
            std::string rest = e.name.substr(data_prefix.size());
            auto slash = rest.find('/');
            std::string key = rest.substr(0, slash);
            std::string sub = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
            if (sub.empty() || std::find(std::begin(kSchemeKeys), std::end(kSchemeKeys), key) == std::end(kSchemeKeys))
                return fail(ExitCode::BadWheel, "wheel.data_scheme", {{"file", src}, {"entry", e.name}});
            if (key == "scripts") {
                std::string leaf = sub.substr(sub.find_last_of('/') + 1);
                if (auto why = unsafe_script_name(leaf); !why.empty())
                    return fail(ExitCode::BadWheel, "scripts.unsafe_name", {{"source", src}, {"name", leaf}, {"reason", why}});
                if (is_entry_point_wrapper(leaf)) continue;
                f.kind = PlannedFile::Kind::Script;
                f.dest = (scheme.scripts / sub).native();
            } else if (key == "headers") {
                f.dest = (scheme.headers(wheel.metadata.name) / sub).native();
            } else {
                const stdfs::path& root = key == "purelib" ? scheme.purelib : key == "platlib" ? scheme.platlib : scheme.data;
                f.dest = (root / sub).native();
            }
        } else {
            f.dest = join_generic_text(plan.lib_dir, e.name);
            f.dest_normal = lib_normal;
            f.record_path = e.name;  // what record_path_for gives: a safe name has no "." or ".." parts
            add(std::move(f), true);
            continue;
        }
        add(std::move(f));
    }

    std::vector<EntryPoint> console, gui;
    for (auto& e : eps) (e.gui ? gui : console).push_back(e);
    console = versioned_entry_points(std::move(console), target.python_major, target.python_minor);
    for (const auto* list : {&console, &gui})
        for (const auto& ep : *list)
            for (auto& g : host_launcher_files(ep, target)) {
                PlannedFile f;
                f.kind = PlannedFile::Kind::Generated;
                f.dest = (scheme.scripts / g.name).native();
                f.content = std::move(g.content);
                f.executable = g.executable;
                f.launcher = true;
                add(std::move(f));
            }

    auto meta_file = [&](const char* leaf, std::string content) {
        PlannedFile f;
        f.kind = PlannedFile::Kind::Generated;
        f.dest = (plan.dist_info / leaf).native();
        f.content = std::move(content);
        add(std::move(f));
    };
    meta_file("INSTALLER", "envfix\n");
    if (options.requested) meta_file("REQUESTED", "");
    return plan;
}

}  // namespace envfix::installer
