// Journal text (journal.hpp).
#include "envfix/installer/journal.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

#include "envfix/common/beneath.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::installer {

namespace {

// '%', control characters and every byte >= 0x80 as %XX: the journal stays ASCII, and file
// names that are not UTF-8 survive the round trip.
std::string encode(std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        if (c == '%' || c < 0x20 || c >= 0x7F) {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::optional<std::string> decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    auto val = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) return std::nullopt;
        int hi = val(s[i + 1]), lo = val(s[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

}  // namespace

std::string_view journal_state_name(Journal::State s) {
    switch (s) {
        case Journal::State::Staging: return "staging";
        case Journal::State::Prepared: return "prepared";
        case Journal::State::Committed: return "committed";
    }
    return "?";
}

std::string journal_to_json(const Journal& j) {
    nlohmann::ordered_json doc;
    doc["version"] = Journal::kVersion;
    doc["id"] = j.id;
    doc["state"] = journal_state_name(j.state);
    doc["pid"] = j.pid;
    doc["created"] = j.created;
    doc["summary"] = encode(j.summary);
    auto& areas = doc["areas"] = nlohmann::ordered_json::array();
    for (const auto& a : j.areas) areas.push_back(encode(a));
    auto& ops = doc["ops"] = nlohmann::ordered_json::array();
    for (const auto& op : j.ops) ops.push_back({op.kind == JournalOp::Kind::Out ? "out" : "in", op.area, encode(op.path)});
    return doc.dump() + "\n";
}

Expected<Journal> parse_journal(std::string_view text, std::string_view source) {
    auto bad = [&](std::string reason) {
        return fail(ExitCode::BadInput, "journal.invalid", {{"path", std::string(source)}, {"reason", std::move(reason)}});
    };
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return bad("not JSON (a write was cut short?)");
    if (!doc.contains("version") || !doc["version"].is_number_integer()) return bad("no version");
    if (doc["version"].get<int>() != Journal::kVersion)
        return bad("version " + std::to_string(doc["version"].get<int>()) + " (this envfix reads version 1)");
    Journal j;
    try {
        j.id = doc.at("id").get<std::string>();
        std::string state = doc.at("state").get<std::string>();
        if (state == "staging") j.state = Journal::State::Staging;
        else if (state == "prepared") j.state = Journal::State::Prepared;
        else if (state == "committed") j.state = Journal::State::Committed;
        else return bad("unknown state " + state);
        // Numbers of the wrong kind refused before they are converted (a float's conversion to an
        // integer it does not fit is undefined).
        if (doc.contains("pid") && !doc["pid"].is_number_integer()) return bad("bad pid");
        j.pid = doc.value("pid", 0LL);
        j.created = doc.value("created", "");
        j.summary = decode(doc.value("summary", "")).value_or("");
        for (const auto& a : doc.at("areas")) {
            auto p = decode(a.get<std::string>());
            if (!p || p->empty() || !std::filesystem::path(*p).is_absolute()) return bad("bad area path");
            j.areas.push_back(*p);
        }
        for (const auto& o : doc.at("ops")) {
            if (!o.is_array() || o.size() != 3) return bad("bad operation");
            JournalOp op;
            std::string kind = o[0].get<std::string>();
            if (kind != "out" && kind != "in") return bad("unknown operation " + kind);
            op.kind = kind == "out" ? JournalOp::Kind::Out : JournalOp::Kind::In;
            if (!o[1].is_number_unsigned() || o[1].get<uint64_t>() >= j.areas.size()) return bad("bad operation area");
            op.area = static_cast<uint32_t>(o[1].get<uint64_t>());
            auto p = decode(o[2].get<std::string>());
            if (!p || p->empty()) return bad("bad operation path");
            if (!fs::plain_relative(*p)) return bad("unsafe operation path " + *p);
            op.path = std::move(*p);
            j.ops.push_back(std::move(op));
        }
    } catch (const std::exception& e) {
        return bad(std::string("missing or mistyped field: ") + e.what());
    }
    if (j.id.empty() || j.id.find_first_of("/\\") != std::string::npos) return bad("bad id");
    return j;
}

}  // namespace envfix::installer
