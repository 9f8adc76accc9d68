// The binary snapshot of a Matrix that the build embeds: parsing the YAML with yaml-cpp takes
// several milliseconds, decoding this takes microseconds (docs/performance.md). Fields in a
// fixed order (snapshot_codec.hpp); a version header rejects snapshots of another layout.
#include <cstring>
#include <tuple>

#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/matrix/snapshot_codec.hpp"

namespace envfix::matrix {

namespace {

// Bump when a model type gains, loses or reorders a field.
constexpr uint32_t kSnapshotVersion = 1;
constexpr char kMagic[4] = {'E', 'F', 'P', 'S'};

// Field lists, in serialization order (snapshot_codec.hpp).
struct MatrixFields {
    static auto of(Platform& x) { return std::tie(x.os, x.cpu); }
    static auto of(SourceRef& x) { return std::tie(x.file, x.line); }
    static auto of(ArchTarget& x) { return std::tie(x.cc.major, x.cc.minor, x.variant); }
    static auto of(CudaVersion& x) { return std::tie(x.major, x.minor); }
    static auto of(PtxIsa& x) { return std::tie(x.major, x.minor); }
    static auto of(ComputeCapability& x) { return std::tie(x.major, x.minor); }
    static auto of(Build& x) { return std::tie(x.platform, x.sass, x.ptx, x.confidence, x.source); }
    static auto of(Variant& x) { return std::tie(x.name, x.cuda, x.toolkit, x.status, x.confidence, x.builds, x.source); }
    static auto of(Companions& x) { return std::tie(x.torchvision, x.torchaudio, x.triton, x.xformers); }
    static auto of(Release& x) {
        return std::tie(x.torch, x.line, x.channel, x.released, x.companions, x.python, x.python_limited, x.pypi_default, x.confidence,
                        x.variants, x.order, x.source);
    }
    static auto of(ToolkitUpdate& x) { return std::tie(x.version, x.linux_min, x.windows_min, x.windows_confidence); }
    static auto of(Toolkit& x) { return std::tie(x.version, x.ptx_isa, x.updates, x.confidence, x.source); }
    static auto of(CompatFloor& x) { return std::tie(x.major, x.linux_min, x.windows_min, x.windows_confidence); }
    static auto of(DriverBranch& x) { return std::tie(x.branch, x.cuda, x.confidence); }
    static auto of(Architecture& x) {
        return std::tie(x.cc, x.family, x.products, x.first_driver, x.last_driver, x.tegra, x.confidence, x.source);
    }
    static auto of(GpuDevice& x) { return std::tie(x.pci_id, x.chip, x.name, x.cc); }
    static auto of(GpuModel& x) { return std::tie(x.name, x.cc, x.aliases); }
    static auto of(Matrix& x) {
        return std::tie(x.releases, x.toolkits, x.floors, x.branches, x.architectures, x.devices, x.models, x.devices_origin);
    }
    // Driver versions travel as their text ("570.26").
    static std::string to_text(const DriverVersion& d) { return d.to_string(); }
    static bool from_text(std::string_view s, DriverVersion& d) {
        auto parsed = DriverVersion::parse(s);
        if (parsed) d = *parsed;
        return parsed.has_value();
    }
};

using Writer = detail::SnapshotWriter<MatrixFields>;
using Reader = detail::SnapshotReader<MatrixFields>;

}  // namespace

std::string encode_snapshot(const Matrix& m) {
    Writer w;
    w.out.append(kMagic, 4);
    w.u64(kSnapshotVersion);
    w.put(m);
    return w.out;
}

Expected<Matrix> decode_snapshot(std::string_view bytes) {
    if (bytes.size() < 5 || std::memcmp(bytes.data(), kMagic, 4) != 0)
        return fail(ExitCode::Internal, "profiles.bad_snapshot", {{"detail", "magic"}});
    Reader r{bytes.substr(4)};
    if (r.u64() != kSnapshotVersion) return fail(ExitCode::Internal, "profiles.bad_snapshot", {{"detail", "version"}});
    Matrix m;
    r.get(m);
    if (!r.ok || !r.in.empty()) return fail(ExitCode::Internal, "profiles.bad_snapshot", {{"detail", "truncated"}});
    return m;
}

}  // namespace envfix::matrix
