// Ready trees after an install (ready_trees.hpp).
#include "ready_trees.hpp"

#include "context.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/message.hpp"
#include "envfix/common/process.hpp"
#include "envfix/installer/unpacked_cache.hpp"

namespace envfix::cli {

namespace {

enum class Mode { Off, Wait, Background };

Mode mode() {
    const auto v = env::get(EnvVar::EnvfixReadyTrees);
    if (v && *v == "0") return Mode::Off;
    if (v && *v == "wait") return Mode::Wait;
    return Mode::Background;
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

void make_ready_trees_after(Context& ctx) {
    if (!ctx.ready_trees_wanted) return;
    ctx.ready_trees_wanted = false;
    if (mode() == Mode::Wait) {
        auto made = installer::make_ready_trees(installer::unpacked_cache_root());
        if (ctx.reporter)
            ctx.reporter->debug(ready_trees_made(made));
        return;
    }
    auto self = current_executable();
    if (!self) return;
    // Best effort: an install without a tree links its files as before.
    if (auto r = start_detached({self->string(), "cache", "ready", "-q"}); !r && ctx.reporter) ctx.reporter->debug(r.error().message);
}

}  // namespace envfix::cli
