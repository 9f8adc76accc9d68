#include "envfix/diagnosis/torch_build.hpp"

#include "envfix/common/strings.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/requirement.hpp"

namespace envfix::diagnosis {

namespace {

// `name [: annotation] = value` -> (name, value text); nullopt for any other line.
std::optional<std::pair<std::string_view, std::string_view>> assignment(std::string_view line) {
    line = str::trim(line);
    if (line.empty() || line.front() == '#') return std::nullopt;
    auto eq = line.find('=');
    if (eq == std::string_view::npos || (eq + 1 < line.size() && line[eq + 1] == '=')) return std::nullopt;
    std::string_view lhs = str::trim(line.substr(0, eq));
    if (auto colon = lhs.find(':'); colon != std::string_view::npos) lhs = str::trim(lhs.substr(0, colon));
    for (char c : lhs)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return std::nullopt;
    return std::make_pair(lhs, str::trim(line.substr(eq + 1)));
}

// 'text' / "text" -> text; None -> nullopt; anything else -> nullopt with `ok` false.
std::optional<std::string> literal(std::string_view v, bool& ok) {
    ok = true;
    if (auto hash = v.find(" #"); hash != std::string_view::npos) v = str::trim(v.substr(0, hash));
    if (v == "None") return std::nullopt;
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) return std::string(v.substr(1, v.size() - 2));
    ok = false;
    return std::nullopt;
}

bool starts_with_digits(std::string_view s, size_t from) { return s.size() > from && std::isdigit(static_cast<unsigned char>(s[from])); }

}  // namespace

std::string_view build_kind_name(BuildKind k) {
    switch (k) {
        case BuildKind::Cuda: return "cuda";
        case BuildKind::Cpu: return "cpu";
        case BuildKind::Rocm: return "rocm";
        case BuildKind::Xpu: return "xpu";
        case BuildKind::Unknown: break;
    }
    return "unknown";
}

std::string_view build_evidence_name(BuildEvidence e) {
    switch (e) {
        case BuildEvidence::VersionFile: return "version-file";
        case BuildEvidence::LocalTag: return "local-tag";
        case BuildEvidence::Requirements: return "requirements";
        case BuildEvidence::Libraries: return "libraries";
        case BuildEvidence::None: break;
    }
    return "none";
}

Expected<TorchVersionFile> parse_torch_version_file(std::string_view text, std::string_view source) {
    TorchVersionFile f;
    bool have_version = false;
    for (auto line : str::split(text, '\n')) {
        auto a = assignment(line);
        if (!a) continue;
        auto [name, value] = *a;
        bool ok = false;
        if (name == "__version__") {
            auto v = literal(value, ok);
            if (ok && v) {
                f.version = *v;
                have_version = true;
            }
        } else if (name == "cuda" || name == "hip" || name == "rocm" || name == "xpu") {
            auto v = literal(value, ok);
            if (!ok) continue;
            (name == "cuda" ? f.cuda : name == "hip" ? f.hip : name == "rocm" ? f.rocm : f.xpu) = v;
        } else if (name == "git_version") {
            if (auto v = literal(value, ok); ok && v) f.git_version = *v;
        } else if (name == "debug") {
            if (value == "True") f.debug = true;
            if (value == "False") f.debug = false;
        }
    }
    if (!have_version || f.version.empty()) return fail(ExitCode::BadInput, "torch.bad_version_file", {{"path", std::string(source)}});
    return f;
}

std::optional<probe::CudaVersion> cuda_from_variant(std::string_view local) {
    if (!local.starts_with("cu") || !starts_with_digits(local, 2)) return std::nullopt;
    for (size_t i = 2; i < local.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(local[i]))) return std::nullopt;
    return probe::CudaVersion::parse(local);
}

TorchBuild torch_build(const standards::InstalledDist& dist, const TorchVersionFile* file, bool has_cuda_library) {
    TorchBuild b;
    b.dist_version = dist.version;
    b.version = file && !file->version.empty() ? file->version : dist.version;
    auto parsed = standards::Version::try_parse(b.version);
    if (!parsed) parsed = dist.parsed_version;
    b.public_version = parsed ? parsed->public_version() : b.version.substr(0, b.version.find('+'));
    b.local = parsed ? parsed->local() : "";
    if (file) b.git_version = file->git_version;

    auto from_local = [&]() -> bool {
        if (auto cu = cuda_from_variant(b.local)) {
            b.kind = BuildKind::Cuda;
            b.cuda = cu;
        } else if (b.local == "cpu" || b.local.starts_with("cpu.")) {
            b.kind = BuildKind::Cpu;
        } else if (b.local.starts_with("rocm")) {
            b.kind = BuildKind::Rocm;
            b.rocm = b.local.substr(4);
        } else if (b.local == "xpu") {
            b.kind = BuildKind::Xpu;
        } else {
            return false;
        }
        return true;
    };

    if (file) {
        b.evidence = BuildEvidence::VersionFile;
        if (file->cuda) {
            b.kind = BuildKind::Cuda;
            b.cuda = probe::CudaVersion::parse(*file->cuda);
        } else if (file->hip || file->rocm) {
            b.kind = BuildKind::Rocm;
            b.rocm = file->rocm.value_or(file->hip.value_or(""));
        } else if (file->xpu) {
            b.kind = BuildKind::Xpu;
        } else {
            b.kind = BuildKind::Cpu;
        }
    } else if (from_local()) {
        b.evidence = BuildEvidence::LocalTag;
    } else {
        // PyPI builds carry no tag: their CUDA libraries come as requirements, pinned to the
        // toolkit the build used (cuda-toolkit==13.0.2, nvidia-cuda-runtime-cu12==12.4.127).
        for (const auto& text : dist.metadata.requires_dist) {
            auto r = standards::Requirement::parse(text);
            if (!r) continue;
            std::string n = r->canonical_name();
            bool runtime = n == "cuda-toolkit" || n.starts_with("nvidia-cuda-runtime");
            if (!runtime && !n.starts_with("nvidia-")) continue;
            if (b.kind != BuildKind::Cuda) {
                b.kind = BuildKind::Cuda;
                b.evidence = BuildEvidence::Requirements;
            }
            if (!runtime || b.cuda) continue;
            for (const auto& s : r->specifier.specifiers())
                if (s.op() == standards::SpecOp::Equal && s.version())
                    b.cuda = probe::CudaVersion{static_cast<int>(s.version()->major()), static_cast<int>(s.version()->minor())};
        }
        if (b.kind != BuildKind::Cuda && has_cuda_library) {
            b.kind = BuildKind::Cuda;
            b.evidence = BuildEvidence::Libraries;
        }
        if (b.kind == BuildKind::Unknown) b.kind = BuildKind::Cpu;  // nothing says CUDA
    }
    // version.py is the truth; the tag only fills what it leaves open.
    if (b.kind == BuildKind::Cuda && !b.cuda) b.cuda = cuda_from_variant(b.local);

    switch (b.kind) {
        case BuildKind::Cuda: b.variant = b.cuda ? b.cuda->variant_tag() : ""; break;
        case BuildKind::Cpu: b.variant = "cpu"; break;
        case BuildKind::Rocm: b.variant = b.rocm.empty() ? "rocm" : "rocm" + b.rocm; break;
        case BuildKind::Xpu: b.variant = "xpu"; break;
        case BuildKind::Unknown: break;
    }
    return b;
}

}  // namespace envfix::diagnosis
