#pragma once
// libcurl and libarchive are loaded when first called, not when envfix starts (curl_lazy_posix.cpp,
// archive_lazy_posix.cpp): linked, they and what they bring in (Kerberos, LDAP, GnuTLS, libxml2,
// ICU…) would be 36 of the 47 libraries the loader maps and binds at every start, 3.7 ms of a 7 ms
// `envfix --version` on the 2-core machine, and a warm install or a doctor needs neither.
#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace envfix::platform {

struct SystemLibrary {
    void* handle = nullptr;
    std::string error;  // "<name> could not be loaded: <reason>", for the first name tried
    // The first of `names` that loads and has every entry point of `needed` (an older library
    // without one is refused here, as the loader would refuse to start an envfix linked to it).
    SystemLibrary(std::initializer_list<std::string> names, std::initializer_list<const char*> needed) {
        for (const auto& n : names) {
            handle = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
            std::string why;
            if (!handle) {
                const char* e = ::dlerror();
                why = e ? e : "no reason given";
            }
            for (const char* sym : needed) {
                if (!handle || ::dlsym(handle, sym)) continue;
                why = std::string("it has no ") + sym + " (too old)";
                ::dlclose(handle);
                handle = nullptr;
            }
            if (handle) return;
            if (error.empty()) error = n + " could not be loaded: " + why;
        }
    }
    // The entry point, or nullptr (the library or the symbol missing).
    template <class Fn>
    Fn symbol(const char* name) const {
        return handle ? reinterpret_cast<Fn>(::dlsym(handle, name)) : nullptr;
    }
};

}  // namespace envfix::platform
