#include "envfix/resolver/installed.hpp"

#include <algorithm>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/resolver/names.hpp"

namespace envfix::resolver {

namespace stdfs = std::filesystem;

const InstalledDist* InstalledSet::find(std::string_view name) const {
    std::string want = canonicalize_name(name);
    for (const auto& d : dists)
        if (d.canonical_name == want) return &d;
    return nullptr;
}

std::vector<const InstalledDist*> InstalledSet::find_all(std::string_view name) const {
    std::string want = canonicalize_name(name);
    std::vector<const InstalledDist*> out;
    for (const auto& d : dists)
        if (d.canonical_name == want) out.push_back(&d);
    return out;
}

namespace {

// "torch-2.7.0+cu128.dist-info" -> ("torch", "2.7.0+cu128"): the fallback when METADATA is unusable.
std::pair<std::string, std::string> name_version_from_folder(const std::string& folder) {
    std::string stem = folder.substr(0, folder.size() - std::string_view(".dist-info").size());
    auto dash = stem.find('-');
    if (dash == std::string::npos) return {stem, ""};
    return {stem.substr(0, dash), stem.substr(dash + 1)};
}

}  // namespace

InstalledDist read_dist_info(const stdfs::path& dist_info) {
    InstalledDist d;
    d.dist_info = dist_info;
    d.site_packages = dist_info.parent_path();
    auto [folder_name, folder_version] = name_version_from_folder(dist_info.filename().string());
    d.name = folder_name;
    d.version = folder_version;

    std::error_code ec;
    auto meta_path = dist_info / "METADATA";
    auto text = fs::read_file(meta_path);
    if (!text) {
        d.problem = make_error(ExitCode::EnvBroken, "installed.no_metadata", {{"path", dist_info.string()}});
    } else if (auto md = parse_core_metadata(*text, meta_path.string()); !md) {
        d.problem = md.error();
    } else {
        d.metadata = std::move(*md);
        d.name = d.metadata.name;
        d.version = d.metadata.version;
    }
    d.canonical_name = canonicalize_name(d.name);
    d.parsed_version = Version::try_parse(d.version);

    if (auto inst = fs::read_file(dist_info / "INSTALLER")) {
        auto first = str::split(*inst, '\n');
        d.installer = std::string(str::trim(first.empty() ? std::string_view() : first[0]));
    }
    d.requested = stdfs::exists(dist_info / "REQUESTED", ec);
    d.has_record = stdfs::exists(dist_info / "RECORD", ec);
    if (auto du = fs::read_file(dist_info / "direct_url.json")) d.direct_url = std::move(*du);
    return d;
}

Expected<InstalledSet> read_installed(const std::vector<stdfs::path>& site_packages) {
    InstalledSet set;
    std::vector<stdfs::path> seen;
    for (const auto& sp : site_packages) {
        std::error_code ec;
        auto canon = stdfs::weakly_canonical(sp, ec);
        if (ec) canon = sp;
        if (std::find(seen.begin(), seen.end(), canon) != seen.end()) continue;  // purelib == platlib
        seen.push_back(canon);
        if (!stdfs::is_directory(sp, ec)) continue;
        stdfs::directory_iterator it(sp, ec);
        if (ec)
            return fail(ExitCode::EnvBroken, "installed.unreadable", {{"path", sp.string()}, {"reason", ec.message()}});
        for (; it != stdfs::directory_iterator(); it.increment(ec)) {
            if (ec) break;
            const auto& p = it->path();
            auto name = p.filename().string();
            if (name.size() <= 10 || !name.ends_with(".dist-info") || !it->is_directory(ec)) continue;
            set.dists.push_back(read_dist_info(p));
        }
    }
    std::sort(set.dists.begin(), set.dists.end(), [](const InstalledDist& a, const InstalledDist& b) {
        return std::tie(a.canonical_name, a.dist_info) < std::tie(b.canonical_name, b.dist_info);
    });
    return set;
}

Expected<std::vector<RecordEntry>> parse_record(std::string_view text, std::string_view source) {
    std::vector<RecordEntry> rows;
    size_t line = 1;
    size_t i = 0;
    while (i < text.size()) {
        // One CSV record: fields separated by ',', optionally quoted, ending at '\n' outside quotes.
        std::vector<std::string> fields(1);
        bool quoted = false;
        size_t start_line = line;
        for (; i < text.size(); ++i) {
            char c = text[i];
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') { fields.back() += '"'; ++i; }
                    else quoted = false;
                } else {
                    if (c == '\n') ++line;
                    fields.back() += c;
                }
                continue;
            }
            if (c == '"' && fields.back().empty()) { quoted = true; continue; }
            if (c == ',') { fields.emplace_back(); continue; }
            if (c == '\r') continue;
            if (c == '\n') { ++i; ++line; break; }
            fields.back() += c;
        }
        if (quoted)
            return fail(ExitCode::BadInput, "record.bad_row",
                        {{"source", std::string(source)}, {"line", std::to_string(start_line)}, {"reason", "unterminated quote"}});
        if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
        if (fields.size() != 3)
            return fail(ExitCode::BadInput, "record.bad_row",
                        {{"source", std::string(source)}, {"line", std::to_string(start_line)},
                         {"reason", "expected 3 fields, found " + std::to_string(fields.size())}});
        RecordEntry e;
        e.path = std::move(fields[0]);
        if (e.path.empty())
            return fail(ExitCode::BadInput, "record.bad_row",
                        {{"source", std::string(source)}, {"line", std::to_string(start_line)}, {"reason", "empty path"}});
        if (!fields[1].empty()) {
            auto eq = fields[1].find('=');
            if (eq == std::string::npos)
                return fail(ExitCode::BadInput, "record.bad_row",
                            {{"source", std::string(source)}, {"line", std::to_string(start_line)}, {"reason", "hash without '='"}});
            e.hash_algorithm = fields[1].substr(0, eq);
            e.hash_digest = fields[1].substr(eq + 1);
        }
        if (!fields[2].empty()) {
            auto n = str::to_int(fields[2]);
            if (!n || *n < 0)
                return fail(ExitCode::BadInput, "record.bad_row",
                            {{"source", std::string(source)}, {"line", std::to_string(start_line)}, {"reason", "bad size"}});
            e.size = static_cast<uint64_t>(*n);
        }
        rows.push_back(std::move(e));
    }
    return rows;
}

Expected<std::vector<RecordEntry>> read_record(const InstalledDist& dist) {
    auto path = dist.dist_info / "RECORD";
    ENVFIX_TRY(std::string text, fs::read_file(path));
    return parse_record(text, path.string());
}

std::string format_record(const std::vector<RecordEntry>& rows) {
    auto field = [](const std::string& s) {
        if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
        return "\"" + str::replace_all(s, "\"", "\"\"") + "\"";
    };
    std::string out;
    for (const auto& r : rows) {
        out += field(r.path);
        out += ',';
        if (!r.hash_algorithm.empty()) out += field(r.hash_algorithm + "=" + r.hash_digest);
        out += ',';
        if (r.size) out += std::to_string(*r.size);
        out += '\n';
    }
    return out;
}

}  // namespace envfix::resolver
