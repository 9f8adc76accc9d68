// The binary snapshot of a Matrix that the build embeds: parsing the YAML with yaml-cpp takes
// several milliseconds, decoding this takes microseconds (docs/performance.md). Little-endian
// fields in a fixed order (integers and lengths as LEB128 varints, signed ones zigzagged); a
// version header rejects snapshots of another layout.
#include <cstring>
#include <tuple>
#include <type_traits>

#include "envfix/resolver/matrix_loader.hpp"

namespace envfix::resolver {

namespace {

// Bump when a model type gains, loses or reorders a field.
constexpr uint32_t kSnapshotVersion = 1;
constexpr char kMagic[4] = {'E', 'F', 'P', 'S'};

// Field lists, in serialization order. Each returns a tuple of references.
auto fields(Platform& x) { return std::tie(x.os, x.cpu); }
auto fields(SourceRef& x) { return std::tie(x.file, x.line); }
auto fields(ArchTarget& x) { return std::tie(x.cc.major, x.cc.minor, x.variant); }
auto fields(CudaVersion& x) { return std::tie(x.major, x.minor); }
auto fields(PtxIsa& x) { return std::tie(x.major, x.minor); }
auto fields(ComputeCapability& x) { return std::tie(x.major, x.minor); }
auto fields(Build& x) { return std::tie(x.platform, x.sass, x.ptx, x.confidence, x.source); }
auto fields(Variant& x) { return std::tie(x.name, x.cuda, x.toolkit, x.status, x.confidence, x.builds, x.source); }
auto fields(Companions& x) { return std::tie(x.torchvision, x.torchaudio, x.triton, x.xformers); }
auto fields(Release& x) {
    return std::tie(x.torch, x.line, x.channel, x.released, x.companions, x.python, x.python_limited, x.pypi_default,
                    x.confidence, x.variants, x.order, x.source);
}
auto fields(ToolkitUpdate& x) { return std::tie(x.version, x.linux_min, x.windows_min, x.windows_confidence); }
auto fields(Toolkit& x) { return std::tie(x.version, x.ptx_isa, x.updates, x.confidence, x.source); }
auto fields(CompatFloor& x) { return std::tie(x.major, x.linux_min, x.windows_min, x.windows_confidence); }
auto fields(DriverBranch& x) { return std::tie(x.branch, x.cuda, x.confidence); }
auto fields(Architecture& x) {
    return std::tie(x.cc, x.family, x.products, x.first_driver, x.last_driver, x.tegra, x.confidence, x.source);
}
auto fields(GpuDevice& x) { return std::tie(x.pci_id, x.chip, x.name, x.cc); }
auto fields(GpuModel& x) { return std::tie(x.name, x.cc, x.aliases); }
auto fields(Matrix& x) {
    return std::tie(x.releases, x.toolkits, x.floors, x.branches, x.architectures, x.devices, x.models, x.devices_origin);
}

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};

struct Writer {
    std::string out;
    void u64(uint64_t v) {
        do {
            unsigned char b = v & 0x7f;
            v >>= 7;
            out.push_back(static_cast<char>(v ? b | 0x80 : b));
        } while (v);
    }
    void i64(int64_t v) { u64((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
    template <class T>
    void put(const T& cv) {
        T& v = const_cast<T&>(cv);  // fields() hands out references; nothing is modified
        if constexpr (std::is_same_v<T, std::string>) {
            u64(v.size());
            out += v;
        } else if constexpr (std::is_same_v<T, DriverVersion>) {
            put(v.to_string());
        } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, char>) {
            u64(static_cast<uint64_t>(static_cast<unsigned char>(v)));
        } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
            i64(static_cast<int64_t>(v));
        } else if constexpr (is_vector<T>::value) {
            u64(v.size());
            for (const auto& e : v) put(e);
        } else if constexpr (is_optional<T>::value) {
            u64(v.has_value());
            if (v) put(*v);
        } else if constexpr (is_pair<T>::value) {
            put(v.first);
            put(v.second);
        } else {
            std::apply([&](auto&... f) { (put(f), ...); }, fields(v));
        }
    }
};

struct Reader {
    std::string_view in;
    bool ok = true;
    uint64_t u64() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (in.empty()) break;
            auto b = static_cast<unsigned char>(in.front());
            in.remove_prefix(1);
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        ok = false;
        return 0;
    }
    int64_t i64() {
        uint64_t z = u64();
        return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
    }
    size_t count() {
        uint64_t n = u64();
        if (n > in.size()) ok = false;  // every element takes at least one byte
        return ok ? static_cast<size_t>(n) : 0;
    }
    template <class T>
    void get(T& v) {
        if (!ok) return;
        if constexpr (std::is_same_v<T, std::string>) {
            size_t n = count();
            v.assign(in.substr(0, n));
            in.remove_prefix(n);
        } else if constexpr (std::is_same_v<T, DriverVersion>) {
            std::string s;
            get(s);
            auto d = DriverVersion::parse(s);
            if (d) v = *d;
            else ok = false;
        } else if constexpr (std::is_same_v<T, bool>) {
            v = u64() != 0;
        } else if constexpr (std::is_same_v<T, char>) {
            v = static_cast<char>(u64());
        } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
            v = static_cast<T>(i64());
        } else if constexpr (is_vector<T>::value) {
            size_t n = count();
            v.clear();
            v.reserve(n);
            for (size_t i = 0; i < n && ok; ++i) get(v.emplace_back());
        } else if constexpr (is_optional<T>::value) {
            if (u64()) get(v.emplace());
            else v.reset();
        } else if constexpr (is_pair<T>::value) {
            get(v.first);
            get(v.second);
        } else {
            std::apply([&](auto&... f) { (get(f), ...); }, fields(v));
        }
    }
};

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

}  // namespace envfix::resolver
