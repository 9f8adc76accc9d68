#pragma once
// The error value of low layers and the one exception family caught in main().
#include <exception>
#include <string>

#include "envfix/common/exit_codes.hpp"
#include "envfix/common/expected.hpp"
#include "envfix/common/message.hpp"

namespace envfix {

struct Error {
    ExitCode code = ExitCode::Internal;
    Message message;
};

inline Error make_error(ExitCode code, std::string key, MessageArgs args = {}) {
    return Error{code, msg(std::move(key), args)};
}
inline Unexpected<Error> fail(ExitCode code, std::string key, MessageArgs args = {}) {
    return unexpected(make_error(code, std::move(key), args));
}

// Thrown above the low layers; caught once in main() and mapped to its exit code.
class Failure : public std::exception {
public:
    explicit Failure(Error e);
    Failure(ExitCode code, std::string key, MessageArgs args = {})
        : Failure(make_error(code, std::move(key), args)) {}
    const Error& error() const noexcept { return err_; }
    ExitCode code() const noexcept { return err_.code; }
    const char* what() const noexcept override { return what_.c_str(); }

private:
    Error err_;
    std::string what_;  // English rendering, for logs and debuggers
};

template <class T>
T value_or_throw(Expected<T>&& e) {
    if (!e) throw Failure(std::move(e).error());
    if constexpr (!std::is_void_v<T>) return std::move(e).value();
}

}  // namespace envfix
