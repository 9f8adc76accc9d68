#include "diag_values.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "envfix/common/strings.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/probe/python_facts.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::test {

using namespace envfix::standards;
using namespace envfix::matrix;
using namespace envfix::diagnosis;

const Matrix& builtin_matrix() {
    static const Matrix m = [] {
        auto loaded = load_embedded_profiles();
        EXPECT_TRUE(loaded);
        return loaded ? *loaded : Matrix{};
    }();
    return m;
}

probe::BinaryArchs archs(const std::string& spec) {
    probe::BinaryArchs a;
    int most = 0;
    for (const auto& token : str::split_copy(spec, ' ')) {
        if (token.empty()) continue;
        std::string t = token;
        int containers = 100;
        std::string isa = "8.4";
        if (auto at = t.find('@'); at != std::string::npos) {
            isa = t.substr(at + 1);
            t = t.substr(0, at);
        }
        if (auto colon = t.find(':'); colon != std::string::npos) {
            containers = static_cast<int>(*str::to_int(t.substr(colon + 1)));
            t = t.substr(0, colon);
        }
        auto target = probe::ArchTarget::parse(t);
        EXPECT_TRUE(target) << t;
        most = std::max(most, containers);
        if (t.starts_with("compute_")) {
            auto dot = isa.find('.');
            probe::PtxIsa v{static_cast<int>(*str::to_int(isa.substr(0, dot))), static_cast<int>(*str::to_int(isa.substr(dot + 1)))};
            a.ptx.push_back({.arch = *target, .isa = v, .entries = containers, .containers = containers});
            a.ptx_entries += containers;
        } else {
            a.sass.push_back({.arch = *target, .cubins = containers, .containers = containers});
            a.cubins += containers;
        }
    }
    std::sort(a.sass.begin(), a.sass.end(), [](const auto& x, const auto& y) { return x.arch < y.arch; });
    std::sort(a.ptx.begin(), a.ptx.end(), [](const auto& x, const auto& y) { return x.arch < y.arch; });
    a.containers = a.code_containers = most;
    probe::classify_targets(a);
    return a;
}

probe::MachineProbe machine(const std::string& driver, const std::string& cuda,
                            const std::vector<std::pair<std::string, std::string>>& gpus) {
    probe::MachineProbe m;
    if (!driver.empty()) m.driver.version = probe::DriverVersion::parse(driver);
    if (!cuda.empty()) {
        m.driver.cuda = probe::CudaVersion::parse(cuda);
        m.driver.cuda_raw = m.driver.cuda->encoded();
    }
    m.driver.library = "libcuda.so.1";
    int i = 0;
    for (const auto& [name, cc] : gpus)
        m.gpus.push_back({.index = i++, .name = name, .cc = *probe::ComputeCapability::parse(cc), .memory_bytes = 1ull << 34});
    return m;
}

probe::MachineProbe no_driver_machine() {
    probe::MachineProbe m;
    m.failure = make_error(ExitCode::NoDriver, "probe.no_driver", {{"tried", "libcuda.so.1"}});
    return m;
}

StackBuilder::StackBuilder(std::string site_packages) : sp_(std::move(site_packages)) {}

StackBuilder& StackBuilder::dist(const std::string& name, const std::string& version, const std::vector<std::string>& requires_dist,
                                 const std::string& folder) {
    InstalledDist d;
    d.name = name;
    d.canonical_name = canonicalize_name(name);
    d.version = version;
    d.parsed_version = Version::try_parse(version);
    d.site_packages = folder.empty() ? sp_ : folder;
    d.dist_info = d.site_packages / (wheel_escape_name(name) + "-" + version + ".dist-info");
    d.metadata.name = name;
    d.metadata.version = version;
    d.metadata.requires_dist = requires_dist;
    d.installer = "pip";
    d.has_record = true;
    stack_.installed.dists.push_back(std::move(d));
    return *this;
}

StackBuilder& StackBuilder::torch(const std::string& version, const std::string& cuda, const std::vector<std::string>& requires_dist) {
    has_torch_ = true;
    torch_version_ = version;
    torch_cuda_ = cuda;
    return dist("torch", version, requires_dist);
}

StackBuilder& StackBuilder::library(const std::string& shown, const std::string& package, const probe::BinaryArchs& a) {
    StackLibrary lib;
    lib.path = std::filesystem::path(sp_) / shown;
    lib.shown = shown;
    lib.package = package;
    lib.role = library_role(package, lib.path.filename().string());
    lib.archs = a;
    stack_.libraries.push_back(std::move(lib));
    return *this;
}

EnvironmentStack StackBuilder::build() const {
    EnvironmentStack s = stack_;
    std::sort(s.installed.dists.begin(), s.installed.dists.end(), [](const InstalledDist& a, const InstalledDist& b) {
        return std::tie(a.canonical_name, a.dist_info) < std::tie(b.canonical_name, b.dist_info);
    });
    if (has_torch_) {
        for (const auto& d : s.installed.dists)
            if (d.canonical_name == "torch" && d.version == torch_version_) s.torch_dist = &d;
        TorchVersionFile file;
        file.version = torch_version_;
        if (!torch_cuda_.empty()) file.cuda = torch_cuda_;
        bool cuda_lib = std::any_of(s.libraries.begin(), s.libraries.end(), [](const StackLibrary& l) { return l.package == "torch"; });
        s.torch = torch_build(*s.torch_dist, &file, cuda_lib);
    }
    return s;
}

Diagnosis run_diagnosis(const probe::MachineProbe& m, const EnvironmentStack& s, const DiagnoseArgs& a) {
    DiagnosisInput in;
    in.matrix = &builtin_matrix();
    in.machine = &m;
    in.stack = &s;
    in.platform = {a.os, CpuKind::X86_64};
    in.python = a.python;
    probe::PythonFacts facts;
    facts.version = a.python + ".1";
    facts.major = 3;
    facts.minor = static_cast<int>(*str::to_int(a.python.substr(2)));
    facts.sys_platform = a.os == OsKind::Windows ? "win32" : "linux";
    facts.platform_system = a.os == OsKind::Windows ? "Windows" : "Linux";
    facts.os_name = a.os == OsKind::Windows ? "nt" : "posix";
    facts.platform_machine = a.os == OsKind::Windows ? "AMD64" : "x86_64";
    facts.implementation_name = "cpython";
    facts.platform_python_implementation = "CPython";
    in.markers = marker_environment(facts);
    in.target_args = {"--python", "/env/bin/python"};
    in.environment = "/env";
    return diagnose(in);
}

bool has_finding(const Diagnosis& d, const std::string& id) {
    return std::any_of(d.findings.begin(), d.findings.end(), [&](const Finding& f) { return f.id == id; });
}

}  // namespace envfix::test
