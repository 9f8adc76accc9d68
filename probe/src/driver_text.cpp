#include "envfix/probe/driver_text.hpp"

#include <cstdio>

#include "envfix/common/strings.hpp"

namespace envfix::probe {

namespace {
// A driver version has at least major.minor ("390.157", "580.159.04"); a bare number is a year
// or a build id in these texts.
std::optional<DriverVersion> version_token(std::string_view token) {
    if (token.find('.') == std::string_view::npos) return std::nullopt;
    return DriverVersion::parse(token);
}

std::string_view first_line(std::string_view text) {
    auto nl = text.find('\n');
    return nl == std::string_view::npos ? text : text.substr(0, nl);
}
}  // namespace

std::optional<DriverVersion> parse_sys_module_version(std::string_view text) {
    return version_token(str::trim(text));
}

std::optional<DriverVersion> parse_proc_driver_version(std::string_view text) {
    std::string_view line = str::trim(first_line(text));
    if (!line.starts_with("NVRM version:")) return std::nullopt;
    auto module = line.find("Kernel Module");
    if (module == std::string_view::npos) return std::nullopt;
    for (auto token : str::split(line.substr(module + 13), ' ')) {
        token = str::trim(token);
        if (auto v = version_token(token)) return v;
    }
    return std::nullopt;
}

std::optional<DriverVersion> parse_nvidia_smi_driver_version(std::string_view out) {
    std::optional<DriverVersion> found;
    for (auto line : str::split(out, '\n')) {
        line = str::trim(line);
        if (line.empty()) continue;
        auto v = version_token(line);
        if (!v) return std::nullopt;  // an error text, not a CSV of versions
        if (found && *found != *v) return std::nullopt;
        if (!found) found = v;
    }
    return found;
}

std::optional<DriverVersion> driver_version_from_library_name(std::string_view file_name) {
    auto so = file_name.find(".so.");
    if (so == std::string_view::npos) return std::nullopt;
    return version_token(file_name.substr(so + 4));
}

std::string format_gpu_uuid(const unsigned char* b) {
    char buf[64];
    std::snprintf(buf, sizeof buf,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                  b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return buf;
}

std::string normalize_pci_bus_id(std::string_view id) {
    std::string s = str::lower(str::trim(id));
    // NVML writes an 8-digit domain ("00000000:01:00.0"), the Driver API a 4-digit one.
    auto colon = s.find(':');
    if (colon != std::string::npos && s.find(':', colon + 1) != std::string::npos) {
        std::string domain = s.substr(0, colon);
        while (domain.size() > 4 && domain.front() == '0') domain.erase(0, 1);
        while (domain.size() < 4) domain.insert(0, "0");
        s = domain + s.substr(colon);
    }
    return s;
}

}  // namespace envfix::probe
