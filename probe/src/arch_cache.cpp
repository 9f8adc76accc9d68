// The binary-archs cache file:
//   {"version": 1, "entries": {"<absolute path>": {"identity": "dev:ino:size:mtime",
//                                                  "archs": {...BinaryArchs...}}}}
#include "envfix/probe/arch_cache.hpp"

#include <nlohmann/json.hpp>

#include "cache_file.hpp"
#include "envfix/common/fs.hpp"

namespace envfix::probe {

namespace {
using Json = nlohmann::json;

Json message_to_json(const Message& m) {
    Json args = Json::object();
    for (const auto& [k, v] : m.args) args[k] = v;
    return {{"key", m.key}, {"args", args}};
}
Message message_from_json(const Json& j) {
    Message m{j.at("key").get<std::string>(), {}};
    for (const auto& [k, v] : j.at("args").items()) m.args.emplace_back(k, v.get<std::string>());
    return m;
}

Json to_json(const BinaryArchs& a) {
    Json sass = Json::array(), ptx = Json::array(), problems = Json::array();
    for (const auto& s : a.sass) sass.push_back({s.arch.sm_tag(), s.cubins, s.containers, s.primary});
    for (const auto& p : a.ptx) ptx.push_back({p.arch.compute_tag(), p.isa.major, p.isa.minor, p.entries, p.containers, p.primary});
    for (const auto& m : a.problems) problems.push_back(message_to_json(m));
    return {{"format", binary_format_name(a.format)},
            {"counts", {a.containers, a.code_containers, a.relocatable_containers, a.cubins, a.ptx_entries,
                        a.other_entries, a.lz4_entries, a.zstd_entries}},
            {"sass", sass}, {"ptx", ptx}, {"scanned", a.scanned}, {"partial", a.partial}, {"problems", problems}};
}

BinaryArchs from_json(const Json& j) {
    BinaryArchs a;
    const auto format = j.at("format").get<std::string>();
    a.format = format == "pe" ? BinaryFormat::Pe : format == "fatbin" ? BinaryFormat::Fatbin : BinaryFormat::Elf;
    const auto& c = j.at("counts");
    int* fields[] = {&a.containers, &a.code_containers, &a.relocatable_containers, &a.cubins,
                     &a.ptx_entries, &a.other_entries, &a.lz4_entries, &a.zstd_entries};
    for (size_t i = 0; i < std::size(fields); ++i) *fields[i] = c.at(i).get<int>();
    for (const auto& s : j.at("sass")) {
        auto t = ArchTarget::parse(s.at(0).get<std::string>());
        if (!t) throw std::runtime_error("bad arch");
        a.sass.push_back({*t, s.at(1).get<int>(), s.at(2).get<int>(), s.at(3).get<bool>()});
    }
    for (const auto& p : j.at("ptx")) {
        auto t = ArchTarget::parse(p.at(0).get<std::string>());
        if (!t) throw std::runtime_error("bad arch");
        a.ptx.push_back({*t, PtxIsa{p.at(1).get<int>(), p.at(2).get<int>()}, p.at(3).get<int>(), p.at(4).get<int>(),
                         p.at(5).get<bool>()});
    }
    a.scanned = j.at("scanned").get<bool>();
    a.partial = j.at("partial").get<bool>();
    for (const auto& m : j.at("problems")) a.problems.push_back(message_from_json(m));
    return a;
}

constexpr const char* kStamp = "identity";
BinaryArchs from_entry(const Json& e) { return from_json(e.at("archs")); }
Json to_entry(const BinaryArchs& archs) { return {{"archs", to_json(archs)}}; }
}  // namespace

struct ArchCache::Impl : StampedEntries<BinaryArchs> {};

ArchCache::ArchCache() : impl_(std::make_unique<Impl>()) {}
ArchCache::ArchCache(ArchCache&&) noexcept = default;
ArchCache& ArchCache::operator=(ArchCache&&) noexcept = default;
ArchCache::~ArchCache() = default;

std::filesystem::path ArchCache::default_path() {
    return fs::cache_dir() / ("binary-archs-v" + std::to_string(kVersion) + ".json");
}

ArchCache ArchCache::in_memory() { return ArchCache(); }

ArchCache ArchCache::load(const std::filesystem::path& file) {
    ArchCache c;
    c.impl_->load(file, kVersion, kStamp, from_entry);
    return c;
}

std::optional<BinaryArchs> ArchCache::find(const std::filesystem::path& file, const fs::FileIdentity& id) const {
    return impl_->find(file, id.to_string());
}

void ArchCache::put(const std::filesystem::path& file, const fs::FileIdentity& id, const BinaryArchs& archs) {
    impl_->put(file, id.to_string(), archs);
}

size_t ArchCache::size() const { return impl_->size(); }
bool ArchCache::dirty() const { return impl_->dirty(); }

Expected<void> ArchCache::save() { return impl_->save(kVersion, kStamp, to_entry); }

}  // namespace envfix::probe
