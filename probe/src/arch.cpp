#include "envfix/probe/arch.hpp"

#include <charconv>

namespace envfix::probe {

namespace {
std::optional<int> number(std::string_view s) {
    int v = 0;
    if (s.empty()) return std::nullopt;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
}
std::string_view strip_prefix(std::string_view s) {
    for (std::string_view pre : {"sm_", "compute_", "SM_", "sm", "compute"})
        if (s.starts_with(pre)) return s.substr(pre.size());
    return s;
}
}  // namespace

std::string ComputeCapability::to_string() const { return std::to_string(major) + "." + std::to_string(minor); }
std::string ComputeCapability::sm_tag() const { return "sm_" + std::to_string(sm()); }

std::optional<ComputeCapability> ComputeCapability::parse(std::string_view s) {
    auto t = ArchTarget::parse(s);
    if (!t || t->variant) return std::nullopt;
    return t->cc;
}

std::string ArchTarget::sm_tag() const { return cc.sm_tag() + (variant ? std::string(1, variant) : ""); }
std::string ArchTarget::compute_tag() const {
    return "compute_" + std::to_string(cc.sm()) + (variant ? std::string(1, variant) : "");
}

std::optional<ArchTarget> ArchTarget::parse(std::string_view s) {
    s = strip_prefix(s);
    ArchTarget t;
    if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) {
        t.variant = s.back();
        s.remove_suffix(1);
    }
    auto dot = s.find('.');
    if (dot != std::string_view::npos) {
        auto ma = number(s.substr(0, dot));
        auto mi = number(s.substr(dot + 1));
        if (!ma || !mi || *mi > 9 || *ma == 0) return std::nullopt;
        t.cc = {*ma, *mi};
        return t;
    }
    auto n = number(s);
    if (!n || *n < 10 || *n > 999) return std::nullopt;
    t.cc = ComputeCapability::from_sm(*n);
    return t;
}

std::string CudaVersion::to_string() const { return std::to_string(major) + "." + std::to_string(minor); }
std::string CudaVersion::variant_tag() const { return "cu" + std::to_string(major) + std::to_string(minor); }

std::optional<CudaVersion> CudaVersion::parse(std::string_view s) {
    if (s.starts_with("cu")) {
        s.remove_prefix(2);
        auto n = number(s);
        if (!n || s.size() < 2) return std::nullopt;  // cu118 -> 11.8, cu130 -> 13.0
        return CudaVersion{*n / 10, *n % 10};
    }
    auto dot = s.find('.');
    if (dot == std::string_view::npos) {
        auto n = number(s);
        if (!n) return std::nullopt;
        if (*n >= 1000) return decode(*n);
        return CudaVersion{*n / 10, *n % 10};
    }
    auto ma = number(s.substr(0, dot));
    auto rest = s.substr(dot + 1);
    auto dot2 = rest.find('.');
    auto mi = number(rest.substr(0, dot2));
    if (!ma || !mi) return std::nullopt;
    return CudaVersion{*ma, *mi};
}

std::string DriverVersion::to_string() const {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i) out += '.';
        std::string n = std::to_string(parts[i]);
        size_t width = i < widths_.size() ? static_cast<size_t>(widths_[i]) : 0;
        if (n.size() < width) n.insert(0, width - n.size(), '0');
        out += n;
    }
    return out;
}

std::optional<DriverVersion> DriverVersion::parse(std::string_view s) {
    DriverVersion v;
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
    size_t start = 0;
    while (start <= s.size()) {
        size_t dot = s.find('.', start);
        auto part = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        auto n = number(part);
        if (!n || part.size() > 9) return std::nullopt;
        v.parts.push_back(*n);
        v.widths_.push_back(static_cast<int>(part.size()));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    if (v.parts.size() > 4) return std::nullopt;
    return v;
}

std::string PtxIsa::to_string() const { return std::to_string(major) + "." + std::to_string(minor); }

}  // namespace envfix::probe
