// Parses profiles/*.yaml into a Matrix, checking the schema (docs/matrix.md) with file:line errors.
#include "envfix/matrix/matrix_loader.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/matrix/yaml_schema.hpp"

namespace envfix::matrix {

using detail::MapReader;
using detail::SchemaError;
using detail::YamlFile;

namespace {

Confidence confidence_of(const MapReader& r, std::string_view key, Confidence fallback) {
    auto v = r.optional_text(key);
    if (!v) return fallback;
    if (*v == "primary") return Confidence::Primary;
    if (*v == "measured") return Confidence::Measured;
    if (*v == "third-party") return Confidence::ThirdParty;
    if (*v == "unconfirmed") return Confidence::Unconfirmed;
    r.fail(r.get(key), "profiles.bad_choice",
           {{"field", std::string(key)}, {"value", *v}, {"allowed", "primary, measured, third-party, unconfirmed"}});
}

DriverVersion driver_of(const MapReader& r, std::string_view key) {
    std::string s = r.text(key);
    auto d = DriverVersion::parse(s);
    if (!d) r.fail(r.get(key), "profiles.bad_driver", {{"value", s}});
    return *d;
}

CudaVersion cuda_of(const MapReader& r, const YAML::Node& n, std::string_view field) {
    std::string s = r.scalar(n, field);
    auto parts = str::split(s, '.');
    auto v = CudaVersion::parse(s);
    if (!v || parts.size() < 2 || parts.size() > 3 ||
        !std::all_of(parts.begin(), parts.end(), [](auto p) { return str::to_int(p).has_value(); }))
        r.fail(n, "profiles.bad_cuda", {{"value", s}});
    return *v;
}

ComputeCapability cc_of(const MapReader& r, std::string_view key) {
    std::string s = r.text(key);
    auto cc = ComputeCapability::parse(s);
    if (!cc || s.find('.') == std::string::npos) r.fail(r.get(key), "profiles.bad_cc", {{"value", s}});
    return *cc;
}

std::string python_of(const MapReader& r, const YAML::Node& n) {
    std::string s = r.scalar(n, "python");
    auto norm = normalize_python(s);
    if (!norm || *norm != s) r.fail(n, "profiles.bad_python", {{"value", s}});
    return s;
}

Platform platform_of(const MapReader& r, const YAML::Node& n) {
    std::string s = r.scalar(n, "platform");
    auto p = Platform::parse(s);
    if (!p) r.fail(n, "profiles.bad_platform", {{"value", s}});
    return *p;
}

// "5.0;6.0;8.6+PTX" -> SASS 5.0, 6.0, 8.6 and PTX 8.6.
void parse_archs(const MapReader& r, const YAML::Node& n, Build& b) {
    std::string s = r.scalar(n, "archs");
    std::set<std::string> seen;
    for (auto raw : str::split(s, ';')) {
        std::string item(str::trim(raw));
        bool ptx = false;
        std::string lowered = str::lower(item);
        if (lowered.ends_with("+ptx")) {
            ptx = true;
            item.resize(item.size() - 4);
        }
        auto t = probe::ArchTarget::parse(item);
        if (item.empty() || !t || item.find('.') == std::string::npos)
            r.fail(n, "profiles.bad_arch", {{"value", std::string(str::trim(raw))}});
        if (!seen.insert(t->sm_tag()).second) r.fail(n, "profiles.duplicate", {{"value", item}});
        b.sass.push_back(*t);
        if (ptx) b.ptx.push_back(*t);
    }
    std::sort(b.sass.begin(), b.sass.end());
    std::sort(b.ptx.begin(), b.ptx.end());
}

// ---------------------------------------------------------------------------------------------
// matrix/cuda.yaml

void parse_cuda(const YamlFile& f, Matrix& m) {
    MapReader top = detail::open_profile(f, {"schema_version", "toolkits", "minor_version_compatibility", "driver_branches"});
    std::set<std::string> versions;
    for (const auto& node : top.list("toolkits")) {
        MapReader t(f, node, "toolkits", {"version", "ptx_isa", "updates", "confidence"});
        Toolkit tk;
        tk.version = cuda_of(t, t.required("version"), "version");
        MapReader named(f, node, "toolkits/" + tk.version.to_string(), {"version", "ptx_isa", "updates", "confidence"});
        if (!versions.insert(tk.version.to_string()).second)
            named.fail(named.get("version"), "profiles.duplicate", {{"value", tk.version.to_string()}});
        std::string isa = named.text("ptx_isa");
        auto isa_v = CudaVersion::parse(isa);  // same "X.Y" shape
        if (!isa_v || isa.find('.') == std::string::npos) named.fail(named.get("ptx_isa"), "profiles.bad_ptx_isa", {{"value", isa}});
        tk.ptx_isa = {isa_v->major, isa_v->minor};
        tk.confidence = confidence_of(named, "confidence", Confidence::Primary);
        tk.source = {f.display(), YamlFile::line(node)};
        for (const auto& un : named.list("updates")) {
            MapReader u(f, un, named.where(), {"version", "linux", "windows", "windows_confidence"});
            ToolkitUpdate up;
            up.version = u.text("version");
            auto uv = cuda_of(u, u.get("version"), "version");
            if (uv != tk.version || str::split(up.version, '.').size() != 3)
                u.fail(u.get("version"), "profiles.update_mismatch", {{"value", up.version}, {"toolkit", tk.version.to_string()}});
            up.linux_min = driver_of(u, "linux");
            up.windows_min = driver_of(u, "windows");
            up.windows_confidence = confidence_of(u, "windows_confidence", tk.confidence);
            tk.updates.push_back(std::move(up));
        }
        if (tk.updates.empty()) named.fail(named.get("updates"), "profiles.empty_list", {{"field", "updates"}});
        m.toolkits.push_back(std::move(tk));
    }
    std::set<int> majors;
    for (const auto& node : top.list("minor_version_compatibility")) {
        MapReader r(f, node, "minor_version_compatibility", {"major", "linux", "windows", "windows_confidence"});
        CompatFloor fl;
        fl.major = static_cast<int>(r.integer("major"));
        if (!majors.insert(fl.major).second) r.fail(r.get("major"), "profiles.duplicate", {{"value", std::to_string(fl.major)}});
        fl.linux_min = driver_of(r, "linux");
        fl.windows_min = driver_of(r, "windows");
        fl.windows_confidence = confidence_of(r, "windows_confidence", Confidence::Primary);
        m.floors.push_back(std::move(fl));
    }
    std::set<int> branches;
    for (const auto& node : top.list("driver_branches")) {
        MapReader r(f, node, "driver_branches", {"branch", "cuda", "confidence"});
        DriverBranch b;
        b.branch = static_cast<int>(r.integer("branch"));
        if (!branches.insert(b.branch).second) r.fail(r.get("branch"), "profiles.duplicate", {{"value", std::to_string(b.branch)}});
        b.cuda = cuda_of(r, r.required("cuda"), "cuda");
        b.confidence = confidence_of(r, "confidence", Confidence::Primary);
        m.branches.push_back(b);
    }
}

// ---------------------------------------------------------------------------------------------
// gpus/architectures.yaml

void parse_architectures(const YamlFile& f, Matrix& m) {
    MapReader top = detail::open_profile(f, {"schema_version", "architectures"});
    std::map<std::string, int> seen;
    for (const auto& node : top.list("architectures")) {
        MapReader r(f, node, "architectures", {"cc", "family", "products", "first_driver", "last_driver", "tegra", "confidence"});
        Architecture a;
        a.cc = cc_of(r, "cc");
        if (auto [it, fresh] = seen.emplace(a.cc.to_string(), YamlFile::line(node)); !fresh)
            r.fail(r.get("cc"), "profiles.duplicate", {{"value", a.cc.to_string()}});
        a.family = r.text("family");
        a.products = r.text("products");
        if (auto v = r.optional_integer("first_driver")) a.first_driver = static_cast<int>(*v);
        if (auto v = r.optional_integer("last_driver")) a.last_driver = static_cast<int>(*v);
        a.tegra = r.boolean("tegra", false);
        a.confidence = confidence_of(r, "confidence", Confidence::Primary);
        a.source = {f.display(), YamlFile::line(node)};
        m.architectures.push_back(std::move(a));
    }
    std::sort(m.architectures.begin(), m.architectures.end(), [](const Architecture& a, const Architecture& b) { return a.cc < b.cc; });
}

// ---------------------------------------------------------------------------------------------
// matrix/releases.yaml

VariantStatus status_of(const MapReader& r) {
    auto v = r.optional_text("status");
    if (!v || *v == "official") return VariantStatus::Official;
    if (*v == "extra") return VariantStatus::Extra;
    if (*v == "experimental") return VariantStatus::Experimental;
    r.fail(r.get("status"), "profiles.bad_choice", {{"field", "status"}, {"value", *v}, {"allowed", "official, extra, experimental"}});
}

// A variant as written, before it is expanded to the release versions it applies to.
struct VariantSpec {
    Variant variant;
    std::vector<std::string> versions;  // empty: every version of the line
    std::vector<std::pair<Build, std::vector<std::string>>> builds;  // build, its versions
};

std::vector<std::string> version_subset(const MapReader& r, const std::set<std::string>& line_versions) {
    std::vector<std::string> out;
    if (!r.has("versions")) return out;
    for (const auto& n : r.list("versions")) {
        std::string v = r.scalar(n, "versions");
        if (!line_versions.count(v)) r.fail(n, "profiles.unknown_version", {{"value", v}});
        out.push_back(v);
    }
    return out;
}

VariantSpec parse_variant(const YamlFile& f, const YAML::Node& node, const std::string& where, const std::set<std::string>& line_versions,
                          Confidence release_conf, const Matrix& m) {
    MapReader pre(f, node, where, {"name", "cuda", "status", "confidence", "versions", "platforms"});
    std::string name = pre.text("name");
    MapReader r(f, node, where + "/" + name, {"name", "cuda", "status", "confidence", "versions", "platforms"});
    VariantSpec spec;
    Variant& v = spec.variant;
    v.name = name;
    v.source = {f.display(), YamlFile::line(node)};
    bool cpu = name == "cpu";
    auto named_cuda = CudaVersion::parse(name);
    if (!cpu && (!name.starts_with("cu") || !named_cuda || name.size() < 4 || name.size() > 5))
        r.fail(r.get("name"), "profiles.bad_variant_name", {{"value", name}});
    if (cpu && r.has("cuda")) r.fail(r.get("cuda"), "profiles.cpu_with_cuda");
    if (!cpu) {
        YAML::Node cn = r.required("cuda");
        v.cuda = cuda_of(r, cn, "cuda");
        v.toolkit = r.text("cuda");
        if (*v.cuda != *named_cuda) r.fail(cn, "profiles.cuda_mismatch", {{"value", v.toolkit}, {"variant", name}});
        const Toolkit* tk = m.toolkit(*v.cuda);
        if (!tk) r.fail(cn, "profiles.unknown_toolkit", {{"value", v.toolkit}});
        if (str::split(v.toolkit, '.').size() == 3 &&
            std::none_of(tk->updates.begin(), tk->updates.end(), [&](const ToolkitUpdate& u) { return u.version == v.toolkit; }))
            r.fail(cn, "profiles.unknown_toolkit", {{"value", v.toolkit}});
    }
    v.status = status_of(r);
    v.confidence = confidence_of(r, "confidence", release_conf);
    spec.versions = version_subset(r, line_versions);
    YAML::Node platforms = r.mapping("platforms");
    std::set<std::string> seen;
    for (const auto& kv : platforms) {
        Platform p = platform_of(r, kv.first);
        if (!seen.insert(p.key()).second) r.fail(kv.first, "profiles.duplicate", {{"value", p.key()}});
        if (cpu && kv.second.IsNull()) {  // "linux-x86_64:" with nothing after it
            Build b;
            b.platform = p;
            b.confidence = v.confidence;
            b.source = {f.display(), YamlFile::line(kv.first)};
            spec.builds.emplace_back(std::move(b), std::vector<std::string>{});
            continue;
        }
        MapReader br(f, kv.second, r.where() + "/" + p.key(), {"archs", "confidence", "versions"});
        Build b;
        b.platform = p;
        b.confidence = confidence_of(br, "confidence", v.confidence);
        b.source = {f.display(), YamlFile::line(kv.first)};
        if (cpu && br.has("archs")) br.fail(br.get("archs"), "profiles.cpu_with_archs");
        if (!cpu) parse_archs(br, br.required("archs"), b);
        spec.builds.emplace_back(std::move(b), version_subset(br, line_versions));
    }
    if (spec.builds.empty()) r.fail(platforms, "profiles.empty_list", {{"field", "platforms"}});
    return spec;
}

void parse_releases(const YamlFile& f, Matrix& m) {
    MapReader top = detail::open_profile(f, {"schema_version", "releases"});
    std::map<std::string, int> torch_seen, line_seen;
    int order = 0;
    for (const auto& node : top.list("releases")) {
        MapReader pre(f, node, "releases",
                      {"line", "channel", "released", "python", "python_limited", "pypi_default", "confidence", "versions", "variants"});
        std::string line = pre.text("line");
        MapReader r(f, node, line,
                    {"line", "channel", "released", "python", "python_limited", "pypi_default", "confidence", "versions", "variants"});
        if (!line_seen.emplace(line, YamlFile::line(node)).second) r.fail(r.get("line"), "profiles.duplicate", {{"value", line}});
        Release base;
        base.line = line;
        std::string channel = r.text("channel");
        if (channel == "stable")
            base.channel = Channel::Stable;
        else if (channel == "nightly")
            base.channel = Channel::Nightly;
        else
            r.fail(r.get("channel"), "profiles.bad_choice", {{"field", "channel"}, {"value", channel}, {"allowed", "stable, nightly"}});
        base.released = r.text("released");
        base.confidence = confidence_of(r, "confidence", Confidence::Primary);
        base.source = {f.display(), YamlFile::line(node)};
        for (const auto& pn : r.list("python")) {
            std::string py = python_of(r, pn);
            if (std::find(base.python.begin(), base.python.end(), py) != base.python.end())
                r.fail(pn, "profiles.duplicate", {{"value", py}});
            base.python.push_back(py);
        }
        if (base.python.empty()) r.fail(r.get("python"), "profiles.empty_list", {{"field", "python"}});
        if (r.has("python_limited")) {
            for (const auto& kv : r.mapping("python_limited")) {
                std::string py = python_of(r, kv.first);
                if (std::find(base.python.begin(), base.python.end(), py) == base.python.end())
                    r.fail(kv.first, "profiles.python_not_listed", {{"value", py}});
                if (!kv.second.IsSequence()) r.fail(kv.second, "profiles.want_list", {{"field", py}});
                std::vector<Platform> ps;
                for (const auto& pn : kv.second) ps.push_back(platform_of(r, pn));
                base.python_limited.emplace_back(py, std::move(ps));
            }
        }

        // versions of this line, oldest first
        std::vector<std::pair<Companions, std::string>> versions;  // companions, torch
        std::vector<int> version_lines;
        std::set<std::string> version_set;
        for (const auto& vn : r.list("versions")) {
            MapReader vr(f, vn, line, {"torch", "torchvision", "torchaudio", "triton", "xformers"});
            std::string torch = vr.text("torch");
            if (!torch_seen.emplace(torch, YamlFile::line(vn)).second) vr.fail(vr.get("torch"), "profiles.duplicate", {{"value", torch}});
            Companions c;
            c.torchvision = vr.optional_text("torchvision").value_or("");
            c.torchaudio = vr.optional_text("torchaudio").value_or("");
            c.triton = vr.optional_text("triton").value_or("");
            c.xformers = vr.optional_text("xformers").value_or("");
            versions.emplace_back(std::move(c), torch);
            version_lines.push_back(YamlFile::line(vn));
            version_set.insert(torch);
        }
        if (versions.empty()) r.fail(r.get("versions"), "profiles.empty_list", {{"field", "versions"}});

        std::vector<VariantSpec> specs;
        std::set<std::string> names;
        for (const auto& vn : r.list("variants")) {
            VariantSpec spec = parse_variant(f, vn, line, version_set, base.confidence, m);
            if (!names.insert(spec.variant.name).second) r.fail(vn, "profiles.duplicate", {{"value", spec.variant.name}});
            specs.push_back(std::move(spec));
        }
        if (specs.empty()) r.fail(r.get("variants"), "profiles.empty_list", {{"field", "variants"}});
        if (auto d = r.optional_text("pypi_default")) {
            if (!names.count(*d)) r.fail(r.get("pypi_default"), "profiles.unknown_variant", {{"value", *d}});
            base.pypi_default = *d;
        }

        for (size_t i = 0; i < versions.size(); ++i) {
            Release rel = base;
            rel.torch = versions[i].second;
            rel.companions = versions[i].first;
            rel.source.line = version_lines[i];
            rel.order = order++;
            auto applies = [&](const std::vector<std::string>& only) {
                return only.empty() || std::find(only.begin(), only.end(), rel.torch) != only.end();
            };
            for (const auto& spec : specs) {
                if (!applies(spec.versions)) continue;
                Variant v = spec.variant;
                for (const auto& [b, only] : spec.builds)
                    if (applies(only)) v.builds.push_back(b);
                if (!v.builds.empty()) rel.variants.push_back(std::move(v));
            }
            m.releases.push_back(std::move(rel));
        }
    }
    if (m.releases.empty()) top.fail(top.get("releases"), "profiles.empty_list", {{"field", "releases"}});
}

// ---------------------------------------------------------------------------------------------
// gpus/devices.yaml and gpus/models.yaml

void parse_devices(const YamlFile& f, Matrix& m) {
    MapReader top = detail::open_profile(f, {"schema_version", "origin", "devices"});
    m.devices_origin = top.text("origin");
    std::map<uint16_t, int> seen;
    for (const auto& node : top.list("devices")) {
        MapReader r(f, node, "devices", {"id", "chip", "cc", "name"});
        GpuDevice d;
        std::string id = r.text("id");
        unsigned v = 0;
        auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), v, 16);
        if (id.size() != 4 || ec != std::errc() || p != id.data() + id.size()) r.fail(r.get("id"), "profiles.bad_pci_id", {{"value", id}});
        d.pci_id = static_cast<uint16_t>(v);
        if (!seen.emplace(d.pci_id, YamlFile::line(node)).second) r.fail(r.get("id"), "profiles.duplicate", {{"value", id}});
        d.chip = r.text("chip");
        d.cc = cc_of(r, "cc");
        if (!m.architecture(d.cc)) r.fail(r.get("cc"), "profiles.unknown_cc", {{"value", d.cc.to_string()}});
        d.name = r.text("name");
        m.devices.push_back(std::move(d));
    }
    std::sort(m.devices.begin(), m.devices.end(), [](const GpuDevice& a, const GpuDevice& b) { return a.pci_id < b.pci_id; });
}

void parse_models(const YamlFile& f, Matrix& m) {
    MapReader top = detail::open_profile(f, {"schema_version", "models"});
    for (const auto& node : top.list("models")) {
        MapReader r(f, node, "models", {"name", "cc", "aliases"});
        GpuModel g;
        g.name = r.text("name");
        g.cc = cc_of(r, "cc");
        if (!m.architecture(g.cc)) r.fail(r.get("cc"), "profiles.unknown_cc", {{"value", g.cc.to_string()}});
        if (r.has("aliases")) g.aliases = r.text_list("aliases");
        m.models.push_back(std::move(g));
    }
}

const ProfileText* find_text(const std::vector<ProfileText>& files, std::string_view name) {
    for (const auto& f : files)
        if (f.name == name) return &f;
    return nullptr;
}

}  // namespace

Expected<Matrix> parse_profiles(const std::vector<ProfileText>& files) {
    for (auto name : kProfileFiles)
        if (!find_text(files, name)) return fail(ExitCode::BadInput, "profiles.missing_file", {{"file", std::string(name)}});
    auto file = [&](std::string_view name) {
        const ProfileText* t = find_text(files, name);
        return YamlFile(t->display, t->text);
    };
    Matrix m;
    try {
        // Order matters: releases refer to toolkits, devices and models to architectures.
        parse_cuda(file("matrix/cuda.yaml"), m);
        parse_architectures(file("gpus/architectures.yaml"), m);
        parse_releases(file("matrix/releases.yaml"), m);
        parse_devices(file("gpus/devices.yaml"), m);
        parse_models(file("gpus/models.yaml"), m);
    } catch (const SchemaError& e) {
        return unexpected(e.error);
    } catch (const YAML::Exception& e) {  // a yaml-cpp conversion the schema did not foresee
        return fail(ExitCode::ProfileInvalid, "profiles.yaml_syntax",
                    {{"file", "profiles"}, {"line", std::to_string(e.mark.line + 1)}, {"detail", e.msg}});
    }
    return m;
}

Expected<Matrix> load_profiles_dir(const std::filesystem::path& dir) {
    std::vector<ProfileText> files;
    for (auto name : kProfileFiles) {
        auto path = dir / std::filesystem::path(std::string(name));
        auto text = fs::read_file(path);
        if (!text) return fail(ExitCode::BadInput, "profiles.missing_file", {{"file", path.string()}});
        files.push_back({std::string(name), path.string(), std::move(*text)});
    }
    return parse_profiles(files);
}

Expected<Matrix> load_profiles(const std::optional<std::filesystem::path>& dir) {
    if (dir) return load_profiles_dir(*dir);
    if (auto env_dir = env::get(EnvVar::EnvfixProfilesDir)) return load_profiles_dir(*env_dir);
    return load_embedded_profiles();
}

}  // namespace envfix::matrix
