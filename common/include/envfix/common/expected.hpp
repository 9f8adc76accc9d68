#pragma once
// A small stand-in for C++23 std::expected (GCC 12 lacks it): low layers return
// Expected<T> instead of throwing; the CLI turns errors into exceptions once, at the top.
#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace envfix {

template <class E>
struct Unexpected {
    E error;
};

template <class E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
    return Unexpected<std::decay_t<E>>{std::forward<E>(e)};
}

struct Error;

template <class T, class E = Error>
class [[nodiscard]] Expected {
public:
    using value_type = T;
    using error_type = E;

    template <class U = T,
              std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                   !std::is_same_v<std::decay_t<U>, Expected> &&
                                   !std::is_same_v<std::decay_t<U>, Unexpected<E>>,
                               int> = 0>
    Expected(U&& v) : v_(std::in_place_index<0>, std::forward<U>(v)) {}
    template <class G>
    Expected(Unexpected<G> u) : v_(std::in_place_index<1>, std::move(u.error)) {}
    Expected() requires std::is_default_constructible_v<T> : v_(std::in_place_index<0>) {}

    bool has_value() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }

    T& value() & { assert(has_value()); return std::get<0>(v_); }
    const T& value() const& { assert(has_value()); return std::get<0>(v_); }
    T&& value() && { assert(has_value()); return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    E& error() & { assert(!has_value()); return std::get<1>(v_); }
    const E& error() const& { assert(!has_value()); return std::get<1>(v_); }
    E&& error() && { assert(!has_value()); return std::get<1>(std::move(v_)); }

    template <class U>
    T value_or(U&& fallback) const& { return has_value() ? value() : static_cast<T>(std::forward<U>(fallback)); }

private:
    std::variant<T, E> v_;
};

template <class E>
class [[nodiscard]] Expected<void, E> {
public:
    Expected() = default;
    template <class G>
    Expected(Unexpected<G> u) : err_(std::move(u.error)), ok_(false) {}

    bool has_value() const noexcept { return ok_; }
    explicit operator bool() const noexcept { return ok_; }
    void value() const { assert(ok_); }
    E& error() & { assert(!ok_); return err_; }
    const E& error() const& { assert(!ok_); return err_; }
    E&& error() && { assert(!ok_); return std::move(err_); }

private:
    E err_{};
    bool ok_ = true;
};

}  // namespace envfix

// Early return of the error from an Expected expression: ENVFIX_TRY(auto x, f());
#define ENVFIX_CONCAT_(a, b) a##b
#define ENVFIX_CONCAT(a, b) ENVFIX_CONCAT_(a, b)
// NOLINTBEGIN(bugprone-macro-parentheses): `tmp` is a name and `decl` a declaration, which
// parentheses would make expressions.
#define ENVFIX_TRY_IMPL(tmp, decl, expr)                         \
    auto tmp = (expr);                                           \
    if (!tmp) return ::envfix::unexpected(std::move(tmp).error()); \
    decl = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
#define ENVFIX_TRY(decl, expr) ENVFIX_TRY_IMPL(ENVFIX_CONCAT(envfix_try_, __LINE__), decl, expr)
#define ENVFIX_TRY_VOID(expr)                                                        \
    do {                                                                             \
        auto envfix_try_v = (expr);                                                  \
        if (!envfix_try_v) return ::envfix::unexpected(std::move(envfix_try_v).error()); \
    } while (0)
