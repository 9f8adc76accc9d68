#include "envfix/matrix/gpu_names.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "envfix/common/strings.hpp"

namespace envfix::matrix {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Words that name the vendor or product line rather than the GPU.
bool noise(std::string_view t) {
    for (std::string_view w : {"nvidia", "geforce", "tesla", "corporation", "gpu", "graphics"})
        if (t == w) return true;
    return false;
}

std::optional<uint16_t> parse_pci_id(std::string_view q) {
    std::string l = str::lower(str::trim(q));
    if (l.starts_with("10de:"))
        l = l.substr(5);
    else if (l.starts_with("0x"))
        l = l.substr(2);
    else
        return std::nullopt;
    unsigned v = 0;
    auto [p, ec] = std::from_chars(l.data(), l.data() + l.size(), v, 16);
    if (l.size() != 4 || ec != std::errc() || p != l.data() + l.size()) return std::nullopt;
    return static_cast<uint16_t>(v);
}

// "AD102GL" -> "AD102": the codename without its workstation/mobile suffix.
std::string chip_base(std::string_view chip) {
    size_t i = 0;
    while (i < chip.size() && is_alpha(chip[i])) ++i;
    while (i < chip.size() && is_digit(chip[i])) ++i;
    return str::lower(chip.substr(0, i));
}

struct Candidate {
    GpuMatch match;
    std::vector<std::string> tokens;
};

// Extra words in the candidate's name, or -1 when a query word is missing from it.
int extra_words(const std::vector<std::string>& query, const std::vector<std::string>& name) {
    std::multiset<std::string> left(name.begin(), name.end());
    for (const auto& q : query) {
        auto it = left.find(q);
        if (it == left.end()) return -1;
        left.erase(it);
    }
    return static_cast<int>(left.size());
}

}  // namespace

std::vector<std::string> name_tokens(std::string_view name) {
    std::vector<std::string> out;
    std::string cur;
    auto flush = [&] {
        // pci.ids says "Mobile" where nvidia-smi says "Laptop GPU".
        if (cur == "laptop") cur = "mobile";
        if (!cur.empty() && !noise(cur)) out.push_back(cur);
        cur.clear();
    };
    for (char c : name) {
        char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        bool alnum = is_alpha(l) || is_digit(l);
        if (!alnum) {
            flush();
            continue;
        }
        if (!cur.empty() && (is_digit(l) != is_digit(cur.back()))) flush();
        cur += l;
    }
    flush();
    return out;
}

std::optional<ComputeCapability> parse_capability(const Matrix& m, std::string_view query) {
    std::string q = str::lower(str::trim(query));
    bool marked = q.starts_with("sm_") || q.starts_with("compute_") || q.starts_with("sm");
    auto cc = ComputeCapability::parse(q);
    if (!cc) return std::nullopt;
    if (q.find('.') != std::string::npos || marked) return cc;
    // Bare digits ("89", "120") could be a model number; only known architectures count.
    if (q.size() <= 3 && m.architecture(*cc)) return cc;
    return std::nullopt;
}

std::vector<GpuMatch> find_gpus(const Matrix& m, std::string_view query, size_t limit) {
    std::vector<GpuMatch> out;
    if (auto id = parse_pci_id(query)) {
        if (const GpuDevice* d = m.device(*id)) out.push_back({d->cc, d->name, d->chip, d->pci_id, 0});
        return out;
    }
    auto q = name_tokens(query);
    if (q.empty()) return out;

    std::vector<Candidate> found;
    auto consider = [&](GpuMatch g, std::string_view text) {
        int extra = extra_words(q, name_tokens(text));
        if (extra < 0) return;
        g.extra_tokens = extra;
        found.push_back({std::move(g), {}});
    };
    for (const auto& d : m.devices) consider({d.cc, d.name, d.chip, d.pci_id, 0}, d.name);
    for (const auto& g : m.models) {
        consider({g.cc, g.name, "", std::nullopt, 0}, g.name);
        for (const auto& a : g.aliases) consider({g.cc, a, "", std::nullopt, 0}, a);  // named as the user knows it
    }
    // A chip codename ("AD102", "gb202") when no name holds the words.
    if (found.empty()) {
        std::string wanted = chip_base(str::trim(query));
        for (const auto& d : m.devices)
            if (!wanted.empty() && chip_base(d.chip) == wanted) {
                found.push_back({{d.cc, "", d.chip, std::nullopt, 0}, {}});
                break;
            }
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const Candidate& a, const Candidate& b) { return a.match.extra_tokens < b.match.extra_tokens; });
    std::set<std::pair<std::string, std::string>> seen;  // same name and cc listed once
    for (auto& c : found) {
        if (!seen.insert({c.match.name, c.match.cc.to_string()}).second) continue;
        out.push_back(std::move(c.match));
        if (out.size() >= limit) break;
    }
    return out;
}

Expected<GpuMatch> resolve_gpu(const Matrix& m, std::string_view query) {
    if (auto cc = parse_capability(m, query)) return GpuMatch{*cc, "", "", std::nullopt, 0};
    auto found = find_gpus(m, query, 64);
    if (found.empty()) return fail(ExitCode::BadInput, "plan.gpu_unknown", {{"query", std::string(query)}});
    // The closest names must agree on the architecture; otherwise the user has to say which.
    int best = found.front().extra_tokens;
    std::vector<std::string> differing;
    std::set<std::string> ccs, names;
    for (const auto& g : found) {
        if (g.extra_tokens != best) break;
        names.insert(g.name);
        if (ccs.insert(g.cc.to_string()).second) differing.push_back(g.name + " (" + g.cc.to_string() + ")");
    }
    if (ccs.size() > 1)
        return fail(ExitCode::BadInput, "plan.gpu_ambiguous", {{"query", std::string(query)}, {"candidates", str::join(differing, ", ")}});
    GpuMatch g = found.front();
    // Name the GPU by the table only when the query names that one product: "V100" fits several
    // SKUs equally, "NVIDIA H200" is closest to "H200 NVL" but may be the SXM card. Words of the
    // product line ("GeForce GTX" before "1080 Ti") do not make it another product.
    bool other_product = names.size() > 1;
    if (!other_product && g.extra_tokens > 0) {
        auto q = name_tokens(query);
        for (const auto& w : name_tokens(g.name)) {
            bool line_word = w == "gtx" || w == "rtx" || w == "gt" || w == "gts" || w == "quadro";
            if (!line_word && std::find(q.begin(), q.end(), w) == q.end()) other_product = true;
        }
    }
    if (other_product) {
        g.name = std::string(str::trim(query));
        g.pci_id.reset();
    }
    return g;
}

std::string gpu_label(const GpuMatch& g) {
    if (g.name.empty()) return g.cc.sm_tag();
    return g.name + " (" + g.cc.sm_tag() + ")";
}

}  // namespace envfix::matrix
