#pragma once
// Ready trees after an install (envfix/installer/unpacked_cache.hpp, docs/performance.md "Ready
// trees"): which wheels an install uses them for, and their making once the command has ended,
// with the interpreter facts the command made outdated (docs/environments.md).
#include <cstddef>
#include <string>
#include <vector>

#include "envfix/common/message.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/unpacked_cache.hpp"

namespace envfix::cli {

struct Context;

// InstallRequest::ready_trees_from by ENVFIX_READY_TREES: 1 ("wait"), 64 ("background"), else 0.
size_t ready_trees_from();

// What the maker did, in one line (`envfix cache ready`, and -v after an install with "wait").
Message ready_trees_made(const installer::ReadyTreesMade& made);

// Once a command has ended, what makes the next one faster: the trees an install asked for
// (Context::ready_trees_wanted), and the facts of the interpreters whose .pth files it changed
// (Context::interpreters, outdated in the facts cache). "wait" does both here, "0" neither, else
// `envfix cache ready` does them in the background (the command's output is complete by then).
// Nothing is reported but at -v: both only speed up a later command.
void make_ready_after(Context& ctx);

// Each interpreter run again for its facts, the cache written (`envfix cache ready --facts`).
void learn_facts_again(const std::vector<std::string>& interpreters, Reporter* reporter);

}  // namespace envfix::cli
