#pragma once
// An error whose message has the arguments every error of a parser shares (the text, the file)
// plus the ones of this error. Private to the resolver.
#include "envfix/common/error.hpp"

namespace envfix::standards::detail {

inline Unexpected<Error> fail_with(ExitCode code, const char* key, MessageArgs common, MessageArgs extra = {}) {
    Error e = make_error(code, key, common);
    for (const auto& [k, v] : extra) e.message.with(k, v);
    return unexpected(std::move(e));
}

}  // namespace envfix::standards::detail
