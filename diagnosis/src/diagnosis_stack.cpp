// The consistency of the installed stack: companions built for another torch (their Requires-Dist
// pins, else the matrix's pairing, and their CUDA variant tag), torch's own pins on its CUDA
// libraries and triton, CUDA runtime packages of more than one major, and duplicate dist-infos.
#include <algorithm>
#include <map>

#include "diagnosis_parts.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/standards/requirement.hpp"

namespace envfix::diagnosis::diag {

namespace {

bool applies(const standards::Requirement& r, const standards::MarkerEnvironment& env) {
    auto a = r.applies(env);
    return !a || *a;  // a marker that cannot be evaluated: take the requirement as meant
}

std::string companion_of(const matrix::Release& r, std::string_view name) {
    if (name == "torchvision") return r.companions.torchvision;
    if (name == "torchaudio") return r.companions.torchaudio;
    if (name == "xformers") return r.companions.xformers;
    if (name == "triton") return r.companions.triton;
    return "";
}

const matrix::Release* release_of(const matrix::Matrix& mx, std::string_view torch_public) {
    auto v = standards::Version::try_parse(torch_public);
    if (!v) return nullptr;
    for (const auto& r : mx.releases)
        if (auto rv = standards::Version::try_parse(r.torch); rv && *rv == *v) return &r;
    return nullptr;
}

// The torch release whose companion `name` is `version` (newest first), "" when none.
std::string torch_for_companion(const matrix::Matrix& mx, std::string_view name, const standards::Version& version) {
    for (auto it = mx.releases.rbegin(); it != mx.releases.rend(); ++it) {
        auto cv = standards::Version::try_parse(companion_of(*it, name));
        if (cv && *cv == version.without_local()) return it->torch;
    }
    return "";
}

void check_companion(Context& c, const standards::InstalledDist& comp, const standards::InstalledDist& torch) {
    std::string who = comp.name + " " + comp.version;
    bool pinned = false;
    for (const auto& text : comp.metadata.requires_dist) {
        auto r = standards::Requirement::parse(text);
        if (!r || r->canonical_name() != "torch" || !applies(*r, c.in.markers)) continue;
        pinned = true;
        if (!torch.parsed_version || r->specifier.contains(*torch.parsed_version, true)) continue;
        c.add({.id = "companion-mismatch",
               .severity = FindingSeverity::Error,
               .layer = Layer::Framework,
               .code = ExitCode::EnvInconsistent,
               .text = msg("diag.companion_pin", {{"companion", who}, {"spec", r->specifier.to_string()}, {"torch", c.torch_name}})});
    }
    // Without a pin (torchaudio 2.11 has none), the release pairing of the matrix.
    if (!pinned && comp.parsed_version)
        if (const matrix::Release* rel = release_of(c.mx, c.torch->public_version)) {
            std::string expected = companion_of(*rel, comp.canonical_name);
            auto ev = standards::Version::try_parse(expected);
            if (ev && !(*ev == comp.parsed_version->without_local())) {
                std::string built_for = torch_for_companion(c.mx, comp.canonical_name, *comp.parsed_version);
                c.add({.id = "companion-mismatch",
                       .severity = FindingSeverity::Error,
                       .layer = Layer::Framework,
                       .code = ExitCode::EnvInconsistent,
                       .text = built_for.empty()
                                   ? msg("diag.companion_pairing",
                                         {{"companion", who}, {"torch", c.torch_name}, {"name", comp.name}, {"expected", expected}})
                                   : msg("diag.companion_built_for", {{"companion", who},
                                                                      {"built_for", built_for},
                                                                      {"torch", c.torch_name},
                                                                      {"name", comp.name},
                                                                      {"expected", expected}})});
            }
        }
    // Built for another CUDA variant (+cu126 next to a +cu128 torch, +cpu next to CUDA).
    if (comp.parsed_version && !c.torch->variant.empty()) {
        std::string tag = comp.parsed_version->local();
        bool variant_tag = tag == "cpu" || cuda_from_variant(tag);
        if (variant_tag && tag != c.torch->variant)
            c.add({.id = "companion-variant",
                   .severity = FindingSeverity::Error,
                   .layer = Layer::Framework,
                   .code = ExitCode::EnvInconsistent,
                   .text = msg("diag.companion_variant",
                               {{"companion", who}, {"tag", tag}, {"torch", c.torch_name}, {"variant", c.torch->variant}})});
    }
}

// torch's own requirements on the libraries it loads (nvidia-*, cuda-*, triton): missing or at
// another version, torch fails at import or at the first kernel.
void check_torch_pins(Context& c, const standards::InstalledDist& torch) {
    for (const auto& text : torch.metadata.requires_dist) {
        auto r = standards::Requirement::parse(text);
        if (!r || !applies(*r, c.in.markers)) continue;
        std::string name = r->canonical_name();
        if (name == "torch" || !is_stack_package(name)) continue;
        const standards::InstalledDist* dep = c.stack.installed.find(name);
        if (!dep || dep->problem) {
            c.add({.id = "torch-requirement-missing",
                   .severity = FindingSeverity::Error,
                   .layer = Layer::Runtime,
                   .code = ExitCode::EnvInconsistent,
                   .text = msg("diag.torch_pin_missing", {{"torch", c.torch_name}, {"requirement", r->to_string()}, {"name", name}})});
        } else if (dep->parsed_version && !r->specifier.contains(*dep->parsed_version, true)) {
            c.add({.id = "torch-requirement-unmet",
                   .severity = FindingSeverity::Error,
                   .layer = Layer::Runtime,
                   .code = ExitCode::EnvInconsistent,
                   .text = msg("diag.torch_pin_unmet",
                               {{"torch", c.torch_name}, {"requirement", r->to_string()}, {"installed", dep->name + " " + dep->version}})});
        }
    }
}

void check_runtime_majors(Context& c) {
    std::map<int, std::vector<std::string>> by_major;
    for (const auto& d : c.stack.installed.dists) {
        if (d.problem) continue;
        if (auto major = runtime_cuda_major(d.canonical_name, d.version)) by_major[*major].push_back(d.name + " " + d.version);
    }
    auto listing = [&] {
        std::vector<std::string> parts;
        for (const auto& [major, names] : by_major) parts.push_back("CUDA " + std::to_string(major) + ": " + str::join(names, ", "));
        return str::join(parts, "; ");
    };
    std::optional<int> torch_major = c.cuda_build() && c.torch->cuda ? std::optional<int>(c.torch->cuda->major) : std::nullopt;
    if (by_major.size() > 1) {
        c.add({.id = "mixed-runtimes",
               .severity = FindingSeverity::Error,
               .layer = Layer::Runtime,
               .code = ExitCode::EnvInconsistent,
               .text = torch_major ? msg("diag.mixed_runtimes_torch",
                                         {{"list", listing()}, {"torch", c.torch_name}, {"major", std::to_string(*torch_major)}})
                                   : msg("diag.mixed_runtimes", {{"list", listing()}})});
    } else if (by_major.size() == 1 && torch_major && by_major.begin()->first != *torch_major) {
        c.add({.id = "runtime-major-mismatch",
               .severity = FindingSeverity::Error,
               .layer = Layer::Runtime,
               .code = ExitCode::EnvInconsistent,
               .text = msg("diag.runtime_major_mismatch",
                           {{"torch", c.torch_name}, {"major", std::to_string(*torch_major)}, {"list", listing()}})});
    }
}

void check_duplicates(Context& c) {
    std::map<std::pair<std::string, std::string>, std::vector<const standards::InstalledDist*>> by_folder;
    std::map<std::string, std::vector<std::string>> folders_of;  // name -> folders holding it
    for (const auto& d : c.stack.installed.dists) {
        auto& list = by_folder[{d.canonical_name, d.site_packages.string()}];
        if (list.empty()) folders_of[d.canonical_name].push_back(d.site_packages.string());
        list.push_back(&d);
    }
    for (const auto& [key, list] : by_folder) {
        if (list.size() < 2) continue;
        std::vector<std::string> names;
        for (const auto* d : list) names.push_back(d->dist_info.filename().string());
        Message text =
            msg("diag.duplicate",
                {{"name", key.first}, {"count", std::to_string(list.size())}, {"folder", key.second}, {"list", str::join(names, ", ")}});
        if (key.first == "torch" && c.torch && c.stack.torch_dist && c.stack.torch_dist->site_packages.string() == key.second)
            text = msg("diag.duplicate_torch", {{"count", std::to_string(list.size())},
                                                {"folder", key.second},
                                                {"list", str::join(names, ", ")},
                                                {"version", c.torch->version},
                                                {"current", c.stack.torch_dist->dist_info.filename().string()}});
        c.add({.id = "duplicate-dist-info",
               .severity = FindingSeverity::Error,
               .layer = key.first == "torch" ? Layer::Framework : Layer::Runtime,
               .code = ExitCode::EnvInconsistent,
               .text = text});
    }
    if (auto it = folders_of.find("torch"); it != folders_of.end() && it->second.size() > 1 && c.stack.torch_dist) {
        std::vector<std::string> others;
        for (const auto& f : it->second)
            if (f != c.stack.torch_dist->site_packages.string()) others.push_back(f);
        c.add({.id = "torch-shadowed",
               .severity = FindingSeverity::Warning,
               .layer = Layer::Framework,
               .text = msg("diag.torch_shadowed",
                           {{"used", c.stack.torch_dist->site_packages.string()}, {"others", str::join(others, ", ")}})});
    }
}

}  // namespace

void judge_stack(Context& c) {
    for (const auto& lib : c.stack.libraries)
        if (lib.archs.partial)
            c.add({.id = "library-partial",
                   .severity = FindingSeverity::Warning,
                   .layer = Layer::Framework,
                   .text = msg("diag.library_partial", {{"library", lib.shown}})});
    // torch's own libraries must be readable (a truncated download, a disk error); an unreadable
    // file elsewhere in site-packages is only worth a warning.
    for (const auto& u : c.stack.unreadable) {
        bool torch = u.package == "torch";
        c.add({.id = "library-unreadable",
               .severity = torch ? FindingSeverity::Error : FindingSeverity::Warning,
               .layer = Layer::Framework,
               .code = torch ? ExitCode::EnvBroken : ExitCode::Ok,
               .text = u.error.message});
    }
    for (const auto& d : c.stack.installed.dists)
        if (d.problem)
            c.add({.id = "broken-dist", .severity = FindingSeverity::Warning, .layer = Layer::Framework, .text = d.problem->message});
    if (c.stack.version_file_problem)
        c.add({.id = "version-file",
               .severity = FindingSeverity::Warning,
               .layer = Layer::Framework,
               .text = c.stack.version_file_problem->message});
    check_duplicates(c);
    check_runtime_majors(c);
    if (!c.torch || !c.stack.torch_dist) return;
    const standards::InstalledDist& torch = *c.stack.torch_dist;
    if (!torch.problem) check_torch_pins(c, torch);
    for (const auto& name : companion_packages()) {
        if (name == "triton" || name == "pytorch-triton") continue;  // torch pins those itself
        for (const auto* comp : c.stack.installed.find_all(name))
            if (!comp->problem && comp->site_packages == torch.site_packages) check_companion(c, *comp, torch);
    }
}

}  // namespace envfix::diagnosis::diag
