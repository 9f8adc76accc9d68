// Every environment envfix can find on this machine (`envfix envs`).
#include <algorithm>
#include <set>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/target.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

namespace {

class Collector {
public:
    explicit Collector(const FactsOptions& facts) : facts_(facts) {}
    void add(Environment e, bool facts_loaded = false) {
        std::error_code ec;
        auto key = stdfs::weakly_canonical(e.root, ec);
        if (!seen_.insert((ec ? e.root : key).string()).second) return;
        if (!facts_loaded) load_facts(e, facts_);
        out_.push_back(std::move(e));
    }
    void add_dir(const stdfs::path& dir, EnvOrigin origin) {
        auto e = inspect_environment_dir(dir);
        if (!e) return;
        e->origin = origin;
        add(std::move(*e));
    }
    std::vector<Environment> take() { return std::move(out_); }

private:
    const FactsOptions& facts_;
    std::set<std::string> seen_;
    std::vector<Environment> out_;
};

}  // namespace

std::vector<Environment> discover_environments(const DiscoverOptions& opts) {
    Collector c(opts.facts);
    if (auto active = resolve_target({}, ResolveOptions{opts.facts, nullptr})) c.add(std::move(*active), true);
    for (const auto& dir : opts.app_paths)
        for (auto& e : app_environments(opts.app, dir, opts.apps)) c.add(std::move(e));
    if (!opts.home) return c.take();
    auto home = fs::home_dir();
    if (!home) return c.take();
    // virtualenvwrapper / pipenv's folder of venvs.
    std::vector<stdfs::path> venvs;
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(*home / ".virtualenvs", ec); !ec && it != stdfs::directory_iterator(); it.increment(ec))
        venvs.push_back(it->path());
    std::sort(venvs.begin(), venvs.end());
    for (const auto& v : venvs) c.add_dir(v, EnvOrigin::Virtualenvs);
    // conda records every environment it creates, one prefix a line.
    if (auto text = fs::read_file(*home / ".conda" / "environments.txt"))
        for (auto line : str::split(*text, '\n'))
            if (auto l = str::trim(line); !l.empty() && l[0] != '#') c.add_dir(stdfs::path(std::string(l)), EnvOrigin::CondaList);
    return c.take();
}

}  // namespace envfix::probe
