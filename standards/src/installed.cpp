#include "envfix/standards/installed.hpp"

#include <algorithm>
#include <cctype>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::standards {

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
// Egg-info names carry the Python version too ("foo-1.0-py3.11.egg-info").
std::pair<std::string, std::string> name_version_from_entry(const std::string& entry) {
    auto dot = entry.rfind('.');
    std::string stem = entry.substr(0, dot);
    auto dash = stem.find('-');
    if (dash == std::string::npos) return {stem, ""};
    std::string version = stem.substr(dash + 1);
    if (entry.ends_with(".egg-info")) version = version.substr(0, version.find('-'));
    return {stem.substr(0, dash), version};
}

// The name and version the entry's own name gives: what is left when its metadata is unusable.
InstalledDist from_entry_name(const stdfs::path& entry) {
    InstalledDist d;
    d.dist_info = entry;
    d.site_packages = entry.parent_path();
    std::tie(d.name, d.version) = name_version_from_entry(entry.filename().string());
    return d;
}

bool is_dist_info(std::string_view name) { return name.size() > 10 && name.ends_with(".dist-info"); }
bool is_egg_info(std::string_view name) { return name.size() > 9 && name.ends_with(".egg-info"); }

// Fills name, version and metadata from a METADATA / PKG-INFO text (or records why it cannot).
void take_metadata(InstalledDist& d, const Expected<std::string>& text, const stdfs::path& file, const ReadInstalledOptions& options) {
    if (!text) {
        d.problem = make_error(ExitCode::EnvBroken, "installed.no_metadata", {{"path", d.dist_info.string()}});
        return;
    }
    std::string_view body = options.headers_only ? metadata_headers(*text) : std::string_view(*text);
    auto md = parse_core_metadata(body, file.string());
    if (!md) {
        d.problem = md.error();
        return;
    }
    d.metadata = std::move(*md);
    d.name = d.metadata.name;
    d.version = d.metadata.version;
}

// INSTALLER's first line ("pip", "uv", "envfix"), "" when absent.
std::string installer_of(const stdfs::path& info) {
    auto text = fs::read_file(info / "INSTALLER");
    if (!text) return "";
    auto lines = str::split(*text, '\n');
    return std::string(str::trim(lines.empty() ? std::string_view() : lines[0]));
}

void finish(InstalledDist& d) {
    d.canonical_name = canonicalize_name(d.name);
    d.parsed_version = Version::try_parse(d.version);
}

}  // namespace

std::string_view metadata_headers(std::string_view text) {
    for (size_t pos = 0; pos < text.size();) {
        size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) return text.substr(0, pos);
        if (nl == std::string_view::npos) break;
        pos = nl + 1;
    }
    return text;
}

std::string installed_entry_name(std::string_view entry_name) {
    std::string e(entry_name);
    if (!is_dist_info(e) && !is_egg_info(e)) return "";
    return canonicalize_name(name_version_from_entry(e).first);
}

std::vector<std::string> egg_info_requirements(std::string_view requires_txt) {
    // pip's metadata/base.py: sections "[extra]", "[:marker]", "[extra:marker]"; the extra is
    // written in setuptools' safe form (runs of other characters become "_", lower case).
    auto safe_extra = [](std::string_view e) {
        std::string out;
        bool run = false;
        for (char c : e) {
            bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
            if (keep) {
                out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                run = false;
            } else if (!run) {
                out += '_';
                run = true;
            }
        }
        return out;
    };
    std::vector<std::string> out;
    std::string extra, marker;
    for (auto raw : str::split(requires_txt, '\n')) {
        std::string_view line = str::trim(raw);
        if (line.empty() || line.front() == '#') continue;
        if (line.front() == '[' && line.back() == ']') {
            while (!line.empty() && (line.front() == '[' || line.front() == ']')) line.remove_prefix(1);
            while (!line.empty() && (line.back() == '[' || line.back() == ']')) line.remove_suffix(1);
            auto colon = line.find(':');
            extra = std::string(line.substr(0, colon));
            marker = colon == std::string_view::npos ? "" : std::string(line.substr(colon + 1));
            continue;
        }
        std::string m;
        if (!extra.empty() && !marker.empty())
            m = "(" + marker + ") and extra == \"" + safe_extra(extra) + "\"";
        else if (!extra.empty())
            m = "extra == \"" + safe_extra(extra) + "\"";
        else
            m = marker;
        out.push_back(m.empty() ? std::string(line) : std::string(line) + " ; " + m);
    }
    return out;
}

InstalledDist read_dist_info(const stdfs::path& dist_info) { return read_dist_info(dist_info, {}); }

InstalledDist read_dist_info(const stdfs::path& dist_info, const ReadInstalledOptions& options) {
    InstalledDist d = from_entry_name(dist_info);
    std::error_code ec;
    auto meta_path = dist_info / "METADATA";
    take_metadata(d, fs::read_file(meta_path), meta_path, options);
    finish(d);

    d.has_record = stdfs::exists(dist_info / "RECORD", ec);
    if (!options.details) return d;
    d.installer = installer_of(dist_info);
    d.requested = stdfs::exists(dist_info / "REQUESTED", ec);
    if (auto du = fs::read_file(dist_info / "direct_url.json")) d.direct_url = std::move(*du);
    return d;
}

InstalledDist read_egg_info(const stdfs::path& egg_info, const ReadInstalledOptions& options) {
    InstalledDist d = from_entry_name(egg_info);
    d.egg_info = true;
    std::error_code ec;
    bool folder = stdfs::is_directory(egg_info, ec);
    auto pkg_info = folder ? egg_info / "PKG-INFO" : egg_info;
    take_metadata(d, fs::read_file(pkg_info), pkg_info, options);
    if (!d.problem && folder && d.metadata.requires_dist.empty()) {
        if (auto req = fs::read_file(egg_info / "requires.txt")) d.metadata.requires_dist = egg_info_requirements(*req);
    }
    finish(d);
    if (folder && options.details) d.installer = installer_of(egg_info);
    return d;
}

Expected<InstalledSet> read_installed(const std::vector<stdfs::path>& site_packages) { return read_installed(site_packages, {}); }

std::vector<stdfs::path> distinct_folders(const std::vector<stdfs::path>& site_packages) {
    std::vector<stdfs::path> seen, out;
    for (const auto& sp : site_packages) {
        std::error_code ec;
        auto canon = stdfs::weakly_canonical(sp, ec);
        if (ec) canon = sp;
        if (std::find(seen.begin(), seen.end(), canon) != seen.end()) continue;  // purelib == platlib
        seen.push_back(canon);
        if (stdfs::is_directory(sp, ec)) out.push_back(sp);
    }
    return out;
}

Expected<InstalledSet> read_installed(const std::vector<stdfs::path>& site_packages, const ReadInstalledOptions& options) {
    InstalledSet set;
    for (const auto& sp : distinct_folders(site_packages)) {
        std::error_code ec;
        stdfs::directory_iterator it(sp, ec);
        if (ec) return fail(ExitCode::EnvBroken, "installed.unreadable", {{"path", sp.string()}, {"reason", ec.message()}});
        for (; it != stdfs::directory_iterator(); it.increment(ec)) {
            if (ec) break;
            const auto& p = it->path();
            auto name = p.filename().string();
            bool dist = is_dist_info(name);
            bool egg = options.egg_info && is_egg_info(name);
            if (!dist && !egg) continue;
            if (options.only && !options.only(installed_entry_name(name))) continue;
            if (dist) {
                if (it->is_directory(ec)) set.dists.push_back(read_dist_info(p, options));
            } else {
                set.dists.push_back(read_egg_info(p, options));
            }
        }
    }
    std::sort(set.dists.begin(), set.dists.end(), [](const InstalledDist& a, const InstalledDist& b) {
        return std::tie(a.canonical_name, a.dist_info) < std::tie(b.canonical_name, b.dist_info);
    });
    return set;
}

Expected<std::vector<RecordEntry>> parse_record(std::string_view text, std::string_view source) {
    auto bad_row = [&](size_t at_line, std::string reason) -> Unexpected<Error> {
        return fail(ExitCode::BadInput, "record.bad_row",
                    {{"source", std::string(source)}, {"line", std::to_string(at_line)}, {"reason", std::move(reason)}});
    };
    // The fields of one record into a row (3 fields: path, "algorithm=digest" or "", size or "").
    auto row_of = [&](std::string_view path, std::string_view hash, std::string_view size, size_t at_line) -> Expected<RecordEntry> {
        RecordEntry e;
        if (path.empty()) return bad_row(at_line, "empty path");
        e.path = path;
        if (!hash.empty()) {
            auto eq = hash.find('=');
            if (eq == std::string_view::npos) return bad_row(at_line, "hash without '='");
            e.hash_algorithm = hash.substr(0, eq);
            e.hash_digest = hash.substr(eq + 1);
        }
        if (!size.empty()) {
            auto n = str::to_int(size);
            if (!n || *n < 0) return bad_row(at_line, "bad size");
            e.size = static_cast<uint64_t>(*n);
        }
        return e;
    };
    std::vector<RecordEntry> rows;
    rows.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    size_t line = 1;
    size_t i = 0;
    while (i < text.size()) {
        // A line without quotes or inner '\r' (all of pip's and torch's 12 000 rows): its fields
        // are what lies between the commas, read without copying a character at a time.
        const size_t nl = text.find('\n', i);
        std::string_view plain = text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
        if (!plain.empty() && plain.back() == '\r') plain.remove_suffix(1);
        // Two finds (one memchr each), not find_first_of (a memchr per character).
        if (plain.find('"') == std::string_view::npos && plain.find('\r') == std::string_view::npos) {
            const size_t at_line = line;
            i = nl == std::string_view::npos ? text.size() : nl + 1;
            ++line;
            if (plain.empty()) continue;  // blank line
            const size_t c1 = plain.find(',');
            const size_t c2 = c1 == std::string_view::npos ? c1 : plain.find(',', c1 + 1);
            const size_t fields = 1 + static_cast<size_t>(std::count(plain.begin(), plain.end(), ','));
            if (fields != 3) return bad_row(at_line, "expected 3 fields, found " + std::to_string(fields));
            ENVFIX_TRY(auto e, row_of(plain.substr(0, c1), plain.substr(c1 + 1, c2 - c1 - 1), plain.substr(c2 + 1), at_line));
            rows.push_back(std::move(e));
            continue;
        }
        // One CSV record in Python's dialect: fields separated by ',', optionally quoted (quotes
        // doubled inside), ending at '\n' outside quotes; '\r' outside quotes dropped.
        std::vector<std::string> fields(1);
        bool quoted = false;
        size_t start_line = line;
        for (; i < text.size(); ++i) {
            char c = text[i];
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') {
                        fields.back() += '"';
                        ++i;
                    } else
                        quoted = false;
                } else {
                    if (c == '\n') ++line;
                    fields.back() += c;
                }
                continue;
            }
            if (c == '"' && fields.back().empty()) {
                quoted = true;
                continue;
            }
            if (c == ',') {
                fields.emplace_back();
                continue;
            }
            if (c == '\r') continue;
            if (c == '\n') {
                ++i;
                ++line;
                break;
            }
            fields.back() += c;
        }
        if (quoted) return bad_row(start_line, "unterminated quote");
        if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
        if (fields.size() != 3) return bad_row(start_line, "expected 3 fields, found " + std::to_string(fields.size()));
        ENVFIX_TRY(auto e, row_of(fields[0], fields[1], fields[2], start_line));
        rows.push_back(std::move(e));
    }
    return rows;
}

Expected<std::vector<RecordEntry>> read_record(const InstalledDist& dist) {
    auto path = dist.dist_info / "RECORD";
    ENVFIX_TRY(std::string text, fs::read_file(path));
    return parse_record(text, path.string());
}

std::string format_record(const std::vector<RecordRowView>& rows) {
    // Appended in place: torch's RECORD has 12 000 rows (a copy per field, and find_first_of's
    // memchr per character, were most of writing it).
    auto plain = [](std::string_view s) {
        for (char c : s)
            if (c == ',' || c == '"' || c == '\n' || c == '\r') return false;
        return true;
    };
    auto quoted = [](std::string& out, std::string_view s) {
        out += '"';
        for (char c : s) {
            if (c == '"') out += '"';
            out += c;
        }
        out += '"';
    };
    size_t size = 0;
    for (const auto& r : rows) size += r.path.size() + r.hash_algorithm.size() + r.hash_digest.size() + 24;
    std::string out;
    out.reserve(size);
    for (const auto& r : rows) {
        if (plain(r.path))
            out += r.path;
        else
            quoted(out, r.path);
        out += ',';
        if (!r.hash_algorithm.empty()) {
            if (plain(r.hash_algorithm) && plain(r.hash_digest)) {
                out += r.hash_algorithm;
                out += '=';
                out += r.hash_digest;
            } else {
                quoted(out, std::string(r.hash_algorithm) + "=" + std::string(r.hash_digest));
            }
        }
        out += ',';
        if (r.size) out += std::to_string(*r.size);
        out += '\n';
    }
    return out;
}

std::string format_record(const std::vector<RecordEntry>& rows) {
    std::vector<RecordRowView> views;
    views.reserve(rows.size());
    for (const auto& r : rows) views.push_back({r.path, r.hash_algorithm, r.hash_digest, r.size});
    return format_record(views);
}

}  // namespace envfix::standards
