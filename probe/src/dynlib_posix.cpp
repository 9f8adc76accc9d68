#include <dlfcn.h>
#include <link.h>

#include "dynlib.hpp"

namespace envfix::probe {

std::optional<DynLib> DynLib::open(const std::string& name, std::string& error) {
    // RTLD_LOCAL: the driver's symbols stay out of the global namespace (a framework loaded
    // later in the same process must not bind to our handle by accident).
    void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = ::dlerror();
        error = e ? e : "dlopen failed";
        // dlerror() starts with the name we already show next to it.
        if (error.starts_with(name + ": ")) error.erase(0, name.size() + 2);
        return std::nullopt;
    }
    return DynLib(h);
}

void* DynLib::symbol(const char* name) const { return ::dlsym(handle_, name); }

std::string DynLib::path() const {
    struct link_map* map = nullptr;
    if (::dlinfo(handle_, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) return map->l_name;
    return {};
}

}  // namespace envfix::probe
