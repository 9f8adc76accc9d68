// The snapshot file format (snapshot.hpp): a JSON header line, then one line per file.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <cstdio>

#include "envfix/common/beneath.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/installer/snapshot.hpp"
#include "snapshot_internal.hpp"

namespace envfix::installer {

namespace snap {

// Paths are percent-encoded where a byte would break the line format.
void append_encoded_path(std::string& out, std::string_view p) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    for (unsigned char c : p) {
        if (c == '%' || c == ' ' || c < 0x20 || c == 0x7f) {
            const char esc[3] = {'%', kHex[c >> 4], kHex[c & 15]};
            out.append(esc, 3);
        } else {
            out += static_cast<char>(c);
        }
    }
}

std::string encode_path(std::string_view p) {
    std::string out;
    out.reserve(p.size());
    append_encoded_path(out, p);
    return out;
}

void append_number(std::string& out, uint64_t v, int base) {
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v, base).ptr);
}

std::optional<std::string> decode_path(std::string_view p) {
    if (p.find('%') == std::string_view::npos) return std::string(p);  // nearly every path: nothing encoded
    std::string out;
    out.reserve(p.size());
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] != '%') {
            out += p[i];
            continue;
        }
        if (i + 2 >= p.size()) return std::nullopt;
        unsigned v = 0;
        auto r = std::from_chars(p.data() + i + 1, p.data() + i + 3, v, 16);
        if (r.ec != std::errc() || r.ptr != p.data() + i + 3) return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
    }
    return out;
}

}  // namespace snap

using snap::decode_path;
using snap::encode_path;

uint64_t Snapshot::bytes() const {
    uint64_t n = 0;
    for (const auto& f : files) n += f.size;
    return n;
}

std::string snap::snapshot_head_text(const Snapshot& s) {
    nlohmann::ordered_json dists = nlohmann::ordered_json::array();
    for (const auto& d : s.dists) dists.push_back({d.name, d.version, d.dist_info});
    nlohmann::ordered_json head = {{"version", Snapshot::kVersion}, {"id", s.id},     {"created", s.created},
                                   {"name", s.name},                {"reason", s.reason}, {"root", s.root},
                                   {"files", s.files.size()},       {"bytes", s.bytes()},     {"dists", dists}};
    return head.dump() + "\n";
}

std::string snap::snapshot_files_text(const Snapshot& s) {
    std::string out;
    out.reserve(s.files.size() * 120);
    // to_chars and appends, not snprintf: written for 17 000 files each time the present is kept.
    for (const auto& f : s.files) {
        out += f.sha256;
        out += ' ';
        snap::append_number(out, f.size, 10);
        out += ' ';
        snap::append_number(out, f.mode, 8);
        out += ' ';
        snap::append_encoded_path(out, f.path);
        out += '\n';
    }
    return out;
}

std::string snapshot_to_text(const Snapshot& s) { return snap::snapshot_head_text(s) + snap::snapshot_files_text(s); }

Expected<SnapshotHead> parse_snapshot_head(std::string_view line, std::string_view source) {
    SnapshotHead h;
    try {
        auto head = nlohmann::json::parse(line);
        // Numbers of the wrong kind refused before they are converted (a float's conversion to an
        // integer it does not fit is undefined; a negative count is no count).
        auto count = [&](const char* key) {
            if (!head.at(key).is_number_unsigned()) throw std::invalid_argument(std::string(key) + " is not a count");
            return head.at(key).get<uint64_t>();
        };
        if (!head.at("version").is_number_integer()) throw std::invalid_argument("version is not a number");
        const long long version = head.at("version").get<long long>();
        if (version != Snapshot::kVersion)
            return fail(ExitCode::BadInput, "snapshot.invalid",
                        {{"path", std::string(source)}, {"reason", "format version " + std::to_string(version) + " (this envfix reads 1)"}});
        h.id = head.at("id").get<std::string>();
        h.created = head.at("created").get<std::string>();
        h.name = head.value("name", "");
        h.reason = head.value("reason", "");
        h.root = head.value("root", "");
        h.files = static_cast<size_t>(count("files"));
        if (head.contains("bytes")) h.bytes = count("bytes");
        for (const auto& d : head.at("dists")) h.dists.push_back({d.at(0).get<std::string>(), d.at(1).get<std::string>(), d.at(2).get<std::string>()});
    } catch (const std::exception& e) {
        return fail(ExitCode::BadInput, "snapshot.invalid", {{"path", std::string(source)}, {"reason", std::string("header: ") + e.what()}});
    }
    return h;
}

Expected<Snapshot> parse_snapshot(std::string_view text, std::string_view source) {
    auto bad = [&](std::string reason) { return fail(ExitCode::BadInput, "snapshot.invalid", {{"path", std::string(source)}, {"reason", reason}}); };
    size_t eol = text.find('\n');
    if (eol == std::string_view::npos) return bad("no header line");
    ENVFIX_TRY(auto head, parse_snapshot_head(text.substr(0, eol), source));
    Snapshot s;
    s.id = std::move(head.id);
    s.created = std::move(head.created);
    s.name = std::move(head.name);
    s.reason = std::move(head.reason);
    s.root = std::move(head.root);
    s.dists = std::move(head.dists);
    const size_t count = head.files;
    s.files.reserve(std::min<size_t>(count, text.size() / 70));  // a line holds 70 bytes at least: the count is not trusted
    size_t line_no = 1;
    for (size_t pos = eol + 1; pos < text.size();) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) return bad("truncated after line " + std::to_string(line_no));
        auto line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        SnapshotFile f;
        size_t a = line.find(' '), b = a == std::string_view::npos ? a : line.find(' ', a + 1),
               c = b == std::string_view::npos ? b : line.find(' ', b + 1);
        if (c == std::string_view::npos || a != 64 || !is_sha256_hex(line.substr(0, 64))) return bad("line " + std::to_string(line_no));
        f.sha256 = std::string(line.substr(0, 64));
        auto r1 = std::from_chars(line.data() + a + 1, line.data() + b, f.size);
        auto r2 = std::from_chars(line.data() + b + 1, line.data() + c, f.mode, 8);
        auto path = decode_path(line.substr(c + 1));
        if (r1.ec != std::errc() || r2.ec != std::errc() || !path || !fs::plain_relative(*path)) return bad("line " + std::to_string(line_no));
        f.path = std::move(*path);
        s.files.push_back(std::move(f));
    }
    if (s.files.size() != count) return bad("expected " + std::to_string(count) + " files, found " + std::to_string(s.files.size()));
    return s;
}

}  // namespace envfix::installer
