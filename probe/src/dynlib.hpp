#pragma once
// A shared library opened at run time: dlopen on POSIX (dynlib_posix.cpp), LoadLibraryExW on
// Windows (dynlib_win32.cpp). Driver libraries are never unloaded: they start threads and
// install handlers, and unloading them under a running process is not safe. Opening the same
// file again returns the same handle, so reopening is cheap.
#include <optional>
#include <string>
#include <vector>

namespace envfix::probe {

class DynLib {
public:
    // `name` is a bare file name (the system's search rules apply) or a path. On failure,
    // `error` gets the loader's reason (dlerror / FormatMessage).
    static std::optional<DynLib> open(const std::string& name, std::string& error);

    void* symbol(const char* name) const;  // nullptr when the library does not export it
    // Points `fn` at the exported function `name`; false (and fn null) when it is not exported.
    template <class Fn>
    bool bind(const char* name, Fn& fn) const {
        fn = reinterpret_cast<Fn>(symbol(name));
        return fn != nullptr;
    }
    std::string path() const;              // the file the loader actually mapped

private:
    explicit DynLib(void* handle) : handle_(handle) {}
    void* handle_ = nullptr;
};

// Where the driver's libraries and tools usually are, in the order to try (platform files:
// driver_locations_posix.cpp / driver_locations_win32.cpp).
std::vector<std::string> default_libcuda_names();   // libcuda.so.1, WSL's copy / nvcuda.dll
std::vector<std::string> default_libnvml_names();   // libnvidia-ml.so.1 ... / nvml.dll ...
std::vector<std::string> default_nvidia_smi_paths(); // "nvidia-smi" (PATH), WSL / System32 copies

}  // namespace envfix::probe
