#pragma once
// Ready trees after an install (envfix/installer/unpacked_cache.hpp, docs/performance.md "Ready
// trees"): which wheels an install uses them for, and their making once the command has ended.
#include <cstddef>

#include "envfix/common/message.hpp"
#include "envfix/installer/unpacked_cache.hpp"

namespace envfix::cli {

struct Context;

// InstallRequest::ready_trees_from by ENVFIX_READY_TREES: 0 ("0"), 1 ("wait"), else 64.
size_t ready_trees_from();

// What the maker did, in one line (`envfix cache ready`, and -v after an install with "wait").
Message ready_trees_made(const installer::ReadyTreesMade& made);

// When an install asked for trees (Context::ready_trees_wanted): "wait" makes them here, else
// `envfix cache ready` is started in the background (the command's output is complete by then).
// Nothing is reported but at -v: the trees only speed up a later install.
void make_ready_trees_after(Context& ctx);

}  // namespace envfix::cli
