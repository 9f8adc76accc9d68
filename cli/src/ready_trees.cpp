// Ready trees after an install (ready_trees.hpp).
#include "ready_trees.hpp"

#include "context.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/message.hpp"
#include "envfix/common/process.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/probe/environment.hpp"
#include "envfix/probe/interpreter_facts.hpp"

#include <algorithm>
#include <utility>

namespace envfix::cli {

namespace {

enum class Mode { Off, Wait, Background };

// Off unless asked for: no process outlives the command that started it unless the user chose
// so (an admin's Ansible run, a container's entry point wait for every child).
Mode mode() {
    const auto v = env::get(EnvVar::EnvfixReadyTrees);
    if (v && *v == "wait") return Mode::Wait;
    if (v && *v == "background") return Mode::Background;
    return Mode::Off;
}

}  // namespace

Message ready_trees_made(const installer::ReadyTreesMade& made) {
    return msg("cache.ready_made", {{"trees", std::to_string(made.trees)}, {"files", std::to_string(made.files)},
                                    {"folders", std::to_string(made.folders)},
                                    {"ms", std::to_string(static_cast<long long>(made.seconds * 1000))},
                                    {"skipped", std::to_string(made.skipped)}});
}

size_t ready_trees_from() {
    switch (mode()) {
        case Mode::Off: return 0;
        case Mode::Wait: return 1;
        case Mode::Background: break;
    }
    // Below this a wheel's links take less than the want, the tree and the rename cost.
    return 64;
}

void learn_facts_again(const std::vector<std::string>& interpreters, Reporter* reporter) {
    if (interpreters.empty()) return;
    auto cache = probe::FactsCache::load(probe::FactsCache::default_path());
    for (const auto& python : interpreters) {
        probe::FactsSource source = probe::FactsSource::Run;
        const auto began = std::chrono::steady_clock::now();
        auto facts = probe::interpreter_facts(python, &cache, probe::FactsOptions{}.timeout, &source);
        if (!reporter) continue;
        if (!facts) {
            reporter->debug(facts.error().message);
        } else if (source == probe::FactsSource::Run) {
            const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began).count();
            reporter->debug(msg("cache.facts_learnt", {{"python", python}, {"ms", std::to_string(ms)}}));
        }
    }
    if (auto saved = cache.save(); !saved && reporter) reporter->debug(saved.error().message);
}

void make_ready_after(Context& ctx) {
    const bool trees = std::exchange(ctx.ready_trees_wanted, false);
    const Mode m = mode();
    if (m == Mode::Off) return;  // no process left behind (trees are never asked for then)
    // The environments whose .pth files the command changed (an install bringing setuptools'
    // distutils-precedence.pth): the next command would run their interpreter first.
    std::vector<std::string> facts;
    if (ctx.facts)
        for (const auto& python : ctx.interpreters)
            if (ctx.facts->outdated(python) && std::find(facts.begin(), facts.end(), python.string()) == facts.end())
                facts.push_back(python.string());
    if (!trees && facts.empty()) return;
    if (m == Mode::Wait) {
        learn_facts_again(facts, ctx.reporter);
        if (trees) {
            auto made = installer::make_ready_trees(installer::unpacked_cache_root());
            if (ctx.reporter) ctx.reporter->debug(ready_trees_made(made));
        }
        return;
    }
    auto self = current_executable();
    if (!self) return;
    std::vector<std::string> argv{self->string(), "cache", "ready", "-q"};
    if (!trees) argv.push_back("--no-trees");
    for (const auto& python : facts) {
        argv.push_back("--facts");
        argv.push_back(python);
    }
    // Best effort: an install without a tree links its files as before; the next command runs
    // the interpreter itself.
    if (auto r = start_detached(argv); !r && ctx.reporter) ctx.reporter->debug(r.error().message);
}

}  // namespace envfix::cli
