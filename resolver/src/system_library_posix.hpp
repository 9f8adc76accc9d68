#pragma once
// libcurl and libarchive are loaded when first called, not when envfix starts (curl_lazy_posix.cpp,
// archive_lazy_posix.cpp): with what they bring in (Kerberos, LDAP, GnuTLS, libxml2, ICU…) they
// were 36 of the 47 libraries the loader mapped and bound at every start, 3.7 ms of the 7 ms
// `envfix --version` took on the 2-core machine, and a warm install or a doctor needs neither.
#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace envfix::resolver::detail {

struct SystemLibrary {
    void* handle = nullptr;
    std::string error;  // "<name> could not be loaded: <dlerror>", for the first name tried
    // The first of `names` that loads.
    explicit SystemLibrary(std::initializer_list<std::string> names) {
        for (const auto& n : names) {
            handle = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (handle) return;
            const char* e = ::dlerror();
            if (error.empty()) error = n + " could not be loaded: " + (e ? e : "no reason given");
        }
    }
    // The entry point, or nullptr (the library or the symbol missing).
    template <class Fn>
    Fn symbol(const char* name) const {
        return handle ? reinterpret_cast<Fn>(::dlsym(handle, name)) : nullptr;
    }
};

}  // namespace envfix::resolver::detail
