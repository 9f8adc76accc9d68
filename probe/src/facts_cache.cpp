// The interpreter facts cache (interpreter_facts.hpp).
#include <algorithm>
#include <map>
#include <set>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
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
    std::string shape;  // venv_shape's key, "" where the interpreter is not a venv's
    std::string root;   // the venv's folder
    std::string paths;  // path_files of its purelib when it was run
};

// What makes two venvs' facts the same but for their folder (FactsCache::derive): the base
// interpreter (its real path and identity), the interpreter's place in the venv ("bin/python"),
// and pyvenv.cfg without the lines that name the venv itself ("command", "prompt").
struct VenvShape {
    stdfs::path root;
    std::string key;
};

std::optional<VenvShape> venv_shape(const stdfs::path& python) {
    std::error_code ec;
    const auto abs = stdfs::absolute(python, ec).lexically_normal();
    if (ec) return std::nullopt;
    for (const auto& root : {abs.parent_path(), abs.parent_path().parent_path()}) {
        const auto cfg = root / "pyvenv.cfg";
        auto cid = fs::identity(cfg);
        if (!cid) continue;
        // A folder reached through a link: Python may report the resolved one.
        if (cid->size > kCfgTextMax || stdfs::weakly_canonical(root, ec) != root || ec) return std::nullopt;
        auto text = fs::read_file(cfg);
        auto id = fs::identity(abs);
        auto real = stdfs::weakly_canonical(abs, ec);
        if (!text || !id || ec) return std::nullopt;
        std::string kept;
        for (auto line : str::split(*text, '\n')) {
            const auto name = str::lower(str::trim(line.substr(0, line.find('='))));
            if (name == "command" || name == "prompt") continue;
            if (line.find(root.string()) != std::string_view::npos) return std::nullopt;  // names its venv elsewhere
            kept += std::string(line) + "\n";
        }
        return VenvShape{root, real.string() + "|" + id->to_string() + "|" + abs.lexically_relative(root).generic_string() + "|" +
                                   sha256_hex(kept)};
    }
    return std::nullopt;
}

// What in a site-packages folder can change sys.path, and so the site-packages the facts list:
// its .pth files and sitecustomize/usercustomize, by name and identity, hashed ("" when none; "?"
// when the folder cannot be read). A venv made again where its .pth added a folder, or given a .pth
// later, is run again.
std::string path_files(const std::string& site_packages) {
    std::error_code ec;
    std::vector<std::string> found;
    for (stdfs::directory_iterator it(site_packages, ec), end; !ec && it != end; it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (!name.ends_with(".pth") && name != "sitecustomize.py" && name != "usercustomize.py") continue;
        auto id = fs::identity(it->path());
        found.push_back(name + ":" + (id ? id->to_string() : std::string("?")));
    }
    if (ec && ec != std::errc::no_such_file_or_directory) return "?";
    if (found.empty()) return "";
    std::sort(found.begin(), found.end());
    return sha256_hex(str::join(found, "|"));  // hashed: file names need not be UTF-8, the cache is JSON
}

// Whether `p` is the folder `dir` or lies inside it (either separator: the facts keep Python's own).
bool inside(const std::string& p, const std::string& dir) {
    return p == dir ||
           (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && (p[dir.size()] == '/' || p[dir.size()] == '\\'));
}

// `p` with the folder `from` at its start replaced by `to`; nullopt where it lies elsewhere.
std::optional<std::string> moved(const std::string& p, const std::string& from, const std::string& to) {
    if (!inside(p, from)) return std::nullopt;
    return to + p.substr(from.size());
}
}  // namespace

struct FactsCache::Impl {
    stdfs::path file;
    std::map<std::string, Entry> entries;
    std::set<std::string> put;  // keys put since loading: only these are written (others' newer ones stay)
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
            c.impl_->entries[path] = Entry{e.at("stamp").get<std::string>(), facts_from_json(e.at("facts")),
                                           e.value("shape", std::string()), e.value("root", std::string()),
                                           e.value("paths", std::string())};
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
                s += "|cfg-sha256:" + sha256_hex(*text);  // hashed: the cache is JSON, the text may not be UTF-8
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

namespace {
// Whether the entry still holds for an interpreter whose stamp is now `now` (not empty).
bool holds(const Entry& e, const std::string& now) { return now == e.stamp && path_files(e.facts.purelib) == e.paths; }
}  // namespace

std::optional<PythonFacts> FactsCache::find(const stdfs::path& python) const {
    auto it = impl_->entries.find(cache_key(python));
    if (it == impl_->entries.end()) return std::nullopt;
    auto now = stamp(python);
    if (now.empty() || !holds(it->second, now)) return std::nullopt;
    return it->second.facts;
}

bool FactsCache::outdated(const stdfs::path& python) const {
    auto it = impl_->entries.find(cache_key(python));
    if (it == impl_->entries.end()) return false;
    auto now = stamp(python);
    return !now.empty() && !holds(it->second, now);  // gone (no stamp): nothing to run
}

std::optional<std::string> FactsCache::watched_now(const stdfs::path& python) const {
    auto it = impl_->entries.find(cache_key(python));
    if (it == impl_->entries.end()) return std::nullopt;
    return path_files(it->second.facts.purelib);
}

std::optional<PythonFacts> FactsCache::derive(const stdfs::path& python) const {
    auto shape = venv_shape(python);
    if (!shape) return std::nullopt;
    const std::string root = shape->root.string();
    for (const auto& [path, e] : impl_->entries) {
        if (e.shape.empty() || e.shape != shape->key || e.root == root || e.facts.prefix != e.root) continue;
        auto exe = moved(e.facts.executable, e.root, root);
        if (!exe) continue;  // sys.executable is the venv's own interpreter
        // Every path the venv reports inside its folder moves with it; the base's stay.
        PythonFacts f = e.facts;
        f.executable = std::move(*exe);
        const std::string& from = e.root;  // clang 14 captures no structured binding
        auto move = [&](std::string& p) {
            if (auto m = moved(p, from, root)) p = std::move(*m);
        };
        for (auto* p : {&f.prefix, &f.purelib, &f.platlib, &f.scripts, &f.data, &f.include}) move(*p);
        // Its site-packages: only its own, every one of them there when it was run and in the new
        // venv now, and the base's (include-system-site-packages); a folder a .pth of the sibling
        // added is its own, not the new venv's.
        const bool own_listed = std::find(e.facts.site_packages.begin(), e.facts.site_packages.end(), e.facts.purelib) !=
                                e.facts.site_packages.end();
        bool alike = own_listed && path_files(f.purelib).empty();
        for (auto& p : f.site_packages) {
            if (auto m = moved(p, e.root, root)) {
                std::error_code ec;
                alike = alike && stdfs::is_directory(*m, ec);
                p = std::move(*m);
            } else {
                alike = alike && !e.facts.base_prefix.empty() && inside(p, e.facts.base_prefix);
            }
        }
        if (alike) return f;
    }
    return std::nullopt;
}

void FactsCache::put(const stdfs::path& python, const PythonFacts& facts, const std::optional<std::string>& watched) {
    auto s = stamp(python);
    if (s.empty()) return;
    const auto key = cache_key(python);
    // What was watched before the run, where it watched this purelib: a .pth changed while the
    // interpreter ran makes the entry outdated at once rather than right with facts from before.
    auto old = impl_->entries.find(key);
    const bool same_folder = watched && old != impl_->entries.end() && old->second.facts.purelib == facts.purelib;
    Entry e{s, facts, {}, {}, same_folder ? *watched : path_files(facts.purelib)};
    if (auto shape = venv_shape(python)) {
        e.shape = std::move(shape->key);
        e.root = shape->root.string();
    }
    impl_->entries[key] = std::move(e);
    impl_->put.insert(key);
}

bool FactsCache::dirty() const { return !impl_->put.empty(); }

Expected<void> FactsCache::save() {
    if (impl_->put.empty() || impl_->file.empty()) return {};
    nlohmann::json entries = nlohmann::json::object();
    for (const auto& path : impl_->put) {
        std::error_code ec;
        if (!stdfs::exists(path, ec)) continue;  // interpreters that are gone
        const Entry& e = impl_->entries.at(path);
        entries[path] = {{"stamp", e.stamp}, {"facts", facts_to_json(e.facts)}, {"paths", e.paths}};
        if (!e.shape.empty()) {
            entries[path]["shape"] = e.shape;
            entries[path]["root"] = e.root;
        }
    }
    ENVFIX_TRY_VOID(write_cache_entries(impl_->file, kVersion, std::move(entries)));
    impl_->put.clear();
    return {};
}

}  // namespace envfix::probe
