// UTF-8 as the narrow encoding on Windows.
//
// std::filesystem::path turns a narrow string into UTF-16 through the C locale's
// codecvt<wchar_t, char>, which MinGW's libstdc++ implements with the C runtime's mbrtowc: in the
// "C" locale one byte becomes one UTF-16 unit, so "C:\Users\张三" names another folder — while
// path::string() writes UTF-8. Every path envfix makes from an argument, a variable or a file's
// text would be wrong for a non-ASCII name. The five members below are the whole of libstdc++'s
// codecvt_members.o; defined here, the static link takes them and never that object, and every
// narrow-to-wide conversion in the C++ library is UTF-8 <-> UTF-16 (unpaired surrogates, which
// Windows file names may hold, pass as 3-byte sequences both ways). This object is linked because
// main() calls arguments() from it.
#include <windows.h>
// after windows.h, which it needs
#include <shellapi.h>

#include <cwchar>
#include <locale>

#include "envfix/common/utf8.hpp"

namespace envfix::utf8 {

std::wstring widen(std::string_view s) {
    if (s.empty()) return {};
    int n = ::MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
    std::wstring w(static_cast<size_t>(n), L'\0');
    ::MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), w.data(), n);
    return w;
}

std::string narrow(std::wstring_view w) {
    if (w.empty()) return {};
    int n = ::WideCharToMultiByte(CP_UTF8, 0, w.data(), static_cast<int>(w.size()), nullptr, 0, nullptr, nullptr);
    std::string s(static_cast<size_t>(n), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, w.data(), static_cast<int>(w.size()), s.data(), n, nullptr, nullptr);
    return s;
}

std::vector<std::string> arguments(int argc, char** argv) {
    int n = 0;
    LPWSTR* wide = ::CommandLineToArgvW(::GetCommandLineW(), &n);
    if (!wide) return {argv, argv + argc};
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back(narrow(wide[i]));
    ::LocalFree(wide);
    return out;
}

std::optional<std::string> environment_variable(const std::string& name) {
    const wchar_t* value = ::_wgetenv(widen(name).c_str());
    if (!value) return std::nullopt;
    return narrow(value);
}

}  // namespace envfix::utf8

namespace {

// One code point from [from, end): its length in bytes, 0 when the bytes there are no UTF-8,
// -1 when the sequence runs past `end`.
int decode(const char* from, const char* end, char32_t& cp) {
    const auto b = static_cast<unsigned char>(*from);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0) return 0;
    if (end - from < len) return -1;
    cp = len == 1 ? b : b & (0x7f >> len);
    for (int i = 1; i < len; ++i) {
        const auto c = static_cast<unsigned char>(from[i]);
        if ((c >> 6) != 2) return 0;
        cp = (cp << 6) | (c & 0x3f);
    }
    static constexpr char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    return cp < least[len] || cp > 0x10ffff ? 0 : len;
}

int encode(char32_t cp, char* out) {
    if (cp < 0x80) return out[0] = static_cast<char>(cp), 1;
    if (cp < 0x800) {
        out[0] = static_cast<char>(0xc0 | (cp >> 6));
        out[1] = static_cast<char>(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<char>(0xe0 | (cp >> 12));
        out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out[2] = static_cast<char>(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = static_cast<char>(0xf0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out[3] = static_cast<char>(0x80 | (cp & 0x3f));
    return 4;
}

}  // namespace

namespace std {

codecvt_base::result codecvt<wchar_t, char, mbstate_t>::do_out(state_type&, const intern_type* from, const intern_type* from_end,
                                                               const intern_type*& from_next, extern_type* to, extern_type* to_end,
                                                               extern_type*& to_next) const {
    result r = ok;
    for (; from < from_end; ++from) {
        char32_t cp = static_cast<char16_t>(*from);
        const bool high = cp >= 0xd800 && cp < 0xdc00;
        if (high && from + 1 == from_end) {
            r = partial;  // the pair's second half comes with the next call
            break;
        }
        const auto next = high ? static_cast<char16_t>(from[1]) : 0;
        const bool pair = high && next >= 0xdc00 && next < 0xe000;
        if (pair) cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
        char bytes[4];
        const int n = encode(cp, bytes);
        if (to_end - to < n) {
            r = partial;
            break;
        }
        for (int i = 0; i < n; ++i) *to++ = bytes[i];
        if (pair) ++from;
    }
    from_next = from;
    to_next = to;
    return r;
}

codecvt_base::result codecvt<wchar_t, char, mbstate_t>::do_in(state_type&, const extern_type* from, const extern_type* from_end,
                                                              const extern_type*& from_next, intern_type* to, intern_type* to_end,
                                                              intern_type*& to_next) const {
    result r = ok;
    while (from < from_end) {
        char32_t cp = 0;
        const int n = decode(from, from_end, cp);
        const int units = cp >= 0x10000 ? 2 : 1;
        if (n == 0) {
            r = error;
            break;
        }
        if (n < 0 || to_end - to < units) {
            r = partial;
            break;
        }
        if (units == 2) {
            *to++ = static_cast<wchar_t>(0xd800 + ((cp - 0x10000) >> 10));
            *to++ = static_cast<wchar_t>(0xdc00 + ((cp - 0x10000) & 0x3ff));
        } else {
            *to++ = static_cast<wchar_t>(cp);
        }
        from += n;
    }
    from_next = from;
    to_next = to;
    return r;
}

int codecvt<wchar_t, char, mbstate_t>::do_encoding() const noexcept { return 0; }  // variable length
int codecvt<wchar_t, char, mbstate_t>::do_max_length() const noexcept { return 4; }

int codecvt<wchar_t, char, mbstate_t>::do_length(state_type&, const extern_type* from, const extern_type* end, size_t max) const {
    const extern_type* at = from;
    for (size_t units = 0; at < end;) {
        char32_t cp = 0;
        const int n = decode(at, end, cp);
        const size_t need = cp >= 0x10000 ? 2 : 1;
        if (n <= 0 || units + need > max) break;
        units += need;
        at += n;
    }
    return static_cast<int>(at - from);
}

}  // namespace std
