#pragma once
// The index options every command that reaches an index takes (plan, install, check, config
// show): --index-url, --extra-index-url, --pytorch-index, --offline, --cert.
#include <memory>

#include "envfix/network/index_config.hpp"

namespace CLI { class App; }

namespace envfix::cli {

// Adds the options to `cmd`; the returned values are filled when the command line is parsed
// (keep the pointer in the command's callback).
std::shared_ptr<network::IndexCliOptions> add_index_options(CLI::App& cmd);

// The effective configuration (command line > environment > config file > defaults);
// throws Failure (ConfigInvalid, Usage, BadInput) when something is wrong.
network::IndexConfig resolve_index_config(const network::IndexCliOptions& cli);

}  // namespace envfix::cli
