// envfix's entry point. Everything, including the one place errors are caught and mapped to
// exit codes, is in cli/src/run.cpp.
#include "envfix/common/platform.hpp"

namespace envfix::cli {
int run(int argc, char** argv);
}

int main(int argc, char** argv) {
    envfix::platform::bound_allocator();
    envfix::platform::reserve_descriptor_table();
    envfix::platform::prepare_console();
    return envfix::cli::run(argc, argv);
}
