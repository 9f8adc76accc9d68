#pragma once
// The binary encoding of the profile snapshots the build embeds (the matrix, the app profiles):
// integers and lengths as LEB128 varints (signed ones zigzagged), strings as length + bytes,
// vectors, optionals and pairs generically, structs through a field list. For matrix/ and apps/
// alone (the encoders of their snapshots).
//
// `Fields` is a struct of static functions `of(T&)` returning std::tie(...) of T's fields in
// serialization order, one overload per struct type; types kept as text (DriverVersion) give
// `to_text(const T&)` and `from_text(std::string_view, T&) -> bool`.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace envfix::matrix::detail {

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};

template <class Fields>
struct SnapshotWriter {
    std::string out;
    void u64(uint64_t v) {
        do {
            unsigned char b = v & 0x7f;
            v >>= 7;
            out.push_back(static_cast<char>(v ? b | 0x80 : b));
        } while (v);
    }
    void i64(int64_t v) { u64((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
    template <class T>
    void put(const T& cv) {
        T& v = const_cast<T&>(cv);  // Fields::of() hands out references; nothing is modified
        if constexpr (std::is_same_v<T, std::string>) {
            u64(v.size());
            out += v;
        } else if constexpr (requires { Fields::to_text(cv); }) {
            put(Fields::to_text(cv));
        } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, char>) {
            u64(static_cast<uint64_t>(static_cast<unsigned char>(v)));
        } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
            i64(static_cast<int64_t>(v));
        } else if constexpr (is_vector<T>::value) {
            u64(v.size());
            for (const auto& e : v) put(e);
        } else if constexpr (is_optional<T>::value) {
            u64(v.has_value());
            if (v) put(*v);
        } else if constexpr (is_pair<T>::value) {
            put(v.first);
            put(v.second);
        } else {
            std::apply([&](auto&... f) { (put(f), ...); }, Fields::of(v));
        }
    }
};

template <class Fields>
struct SnapshotReader {
    std::string_view in;
    bool ok = true;
    uint64_t u64() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (in.empty()) break;
            auto b = static_cast<unsigned char>(in.front());
            in.remove_prefix(1);
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        ok = false;
        return 0;
    }
    int64_t i64() {
        uint64_t z = u64();
        return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
    }
    size_t count() {
        uint64_t n = u64();
        if (n > in.size()) ok = false;  // every element takes at least one byte
        return ok ? static_cast<size_t>(n) : 0;
    }
    template <class T>
    void get(T& v) {
        if (!ok) return;
        if constexpr (std::is_same_v<T, std::string>) {
            size_t n = count();
            v.assign(in.substr(0, n));
            in.remove_prefix(n);
        } else if constexpr (requires(std::string_view s) { Fields::from_text(s, v); }) {
            std::string s;
            get(s);
            if (!Fields::from_text(s, v)) ok = false;
        } else if constexpr (std::is_same_v<T, bool>) {
            v = u64() != 0;
        } else if constexpr (std::is_same_v<T, char>) {
            v = static_cast<char>(u64());
        } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
            v = static_cast<T>(i64());
        } else if constexpr (is_vector<T>::value) {
            size_t n = count();
            v.clear();
            v.reserve(n);
            for (size_t i = 0; i < n && ok; ++i) get(v.emplace_back());
        } else if constexpr (is_optional<T>::value) {
            if (u64())
                get(v.emplace());
            else
                v.reset();
        } else if constexpr (is_pair<T>::value) {
            get(v.first);
            get(v.second);
        } else {
            std::apply([&](auto&... f) { (get(f), ...); }, Fields::of(v));
        }
    }
};

}  // namespace envfix::matrix::detail
