// envfix's entry point. Everything, including the one place errors are caught and mapped to
// exit codes, is in cli/src/run.cpp.
#include <vector>

#include "envfix/common/platform.hpp"
#include "envfix/common/utf8.hpp"

namespace envfix::cli {
int run(int argc, char** argv);
}

int main(int argc, char** argv) {
    envfix::platform::bound_allocator();
    envfix::platform::reserve_descriptor_table();
    envfix::platform::prepare_console();
    auto args = envfix::utf8::arguments(argc, argv);  // UTF-8 on Windows too
    std::vector<char*> utf8_argv;
    for (auto& a : args) utf8_argv.push_back(a.data());
    utf8_argv.push_back(nullptr);
    return envfix::cli::run(static_cast<int>(args.size()), utf8_argv.data());
}
