// The interpreter facts cache (interpreter_facts.hpp).
#include <map>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "cache_file.hpp"
#include "facts_json.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

namespace {
constexpr uint64_t kCfgTextMax = 4096;  // larger: keyed by its identity

struct Entry {
    std::string stamp;
    PythonFacts facts;
};
}  // namespace

struct FactsCache::Impl {
    stdfs::path file;
    std::map<std::string, Entry> entries;
    bool dirty = false;
};

FactsCache::FactsCache() : impl_(std::make_unique<Impl>()) {}
FactsCache::FactsCache(FactsCache&&) noexcept = default;
FactsCache& FactsCache::operator=(FactsCache&&) noexcept = default;
FactsCache::~FactsCache() = default;

stdfs::path FactsCache::default_path() { return fs::cache_dir() / ("interpreters-v" + std::to_string(kVersion) + ".json"); }

FactsCache FactsCache::in_memory() { return FactsCache(); }

FactsCache FactsCache::load(const stdfs::path& file) {
    FactsCache c;
    c.impl_->file = file;
    auto entries = read_cache_entries(file, kVersion);
    if (!entries) return c;
    try {
        for (const auto& [path, e] : entries->items())
            c.impl_->entries[path] = Entry{e.at("stamp").get<std::string>(), facts_from_json(e.at("facts"))};
    } catch (const std::exception&) {
        c.impl_->entries.clear();  // a damaged cache is rebuilt
    }
    return c;
}

std::string FactsCache::stamp(const stdfs::path& python) {
    auto id = fs::identity(python);
    if (!id) return "";
    std::error_code ec;
    auto real = stdfs::weakly_canonical(python, ec);
    std::string s = (ec ? python : real).string() + "|" + id->to_string();
    const auto dir = stdfs::absolute(python, ec).parent_path();
    // The files that change what the interpreter reports without touching it. pyvenv.cfg by its
    // text, not its identity: a venv made again at the same path from the same interpreter reports
    // the same facts (uv keys on the path alone), and its interpreter start is ~30 ms of a warm
    // install; a change of base, version or include-system-site-packages changes the text.
    for (const auto& cfg : {dir / "pyvenv.cfg", dir.parent_path() / "pyvenv.cfg"}) {
        auto cid = fs::identity(cfg);
        if (!cid) continue;
        if (cid->size <= kCfgTextMax)
            if (auto text = fs::read_file(cfg)) {
                s += "|cfg-text:" + *text;
                continue;
            }
        s += "|cfg:" + cid->to_string();
    }
    if (str::lower(python.extension().string()) == ".exe") {
        for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
            auto name = it->path().filename().string();
            if (name.ends_with("._pth"))
                if (auto pid = fs::identity(it->path())) s += "|pth:" + name + ":" + pid->to_string();
        }
    }
    return s;
}

std::optional<PythonFacts> FactsCache::find(const stdfs::path& python) const {
    auto it = impl_->entries.find(cache_key(python));
    if (it == impl_->entries.end()) return std::nullopt;
    auto now = stamp(python);
    if (now.empty() || now != it->second.stamp) return std::nullopt;
    return it->second.facts;
}

void FactsCache::put(const stdfs::path& python, const PythonFacts& facts) {
    auto s = stamp(python);
    if (s.empty()) return;
    impl_->entries[cache_key(python)] = Entry{s, facts};
    impl_->dirty = true;
}

bool FactsCache::dirty() const { return impl_->dirty; }

Expected<void> FactsCache::save() {
    if (!impl_->dirty || impl_->file.empty()) return {};
    nlohmann::json entries = nlohmann::json::object();
    for (const auto& [path, e] : impl_->entries) {
        std::error_code ec;
        if (!stdfs::exists(path, ec)) continue;  // interpreters that are gone
        entries[path] = {{"stamp", e.stamp}, {"facts", facts_to_json(e.facts)}};
    }
    ENVFIX_TRY_VOID(write_cache_entries(impl_->file, kVersion, std::move(entries)));
    impl_->dirty = false;
    return {};
}

}  // namespace envfix::probe
