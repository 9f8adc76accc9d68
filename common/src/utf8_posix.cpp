#include <cstdlib>

#include "envfix/common/utf8.hpp"

namespace envfix::utf8 {

std::vector<std::string> arguments(int argc, char** argv) { return {argv, argv + argc}; }

std::optional<std::string> environment_variable(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
}

}  // namespace envfix::utf8
