#pragma once
// Facts about one Python interpreter: what the resolver needs for tags and markers, and the
// installer for install paths. Gathered by running the interpreter once (probe), or derived
// from files where it cannot run (a Windows layout read on Linux); `unknown` then lists the
// fields that could not be derived.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace envfix::probe {

struct PythonFacts {
    std::string executable;
    std::string version;               // python_full_version, "3.12.3"
    int major = 0;
    int minor = 0;
    std::string implementation_name;   // sys.implementation.name: "cpython", "pypy"
    std::string implementation_version;
    std::string platform_python_implementation;  // "CPython"
    std::string abiflags;              // sys.abiflags ("" on Windows; "t" free-threaded)
    bool free_threaded = false;        // Py_GIL_DISABLED
    std::string soabi;                 // sysconfig SOABI, "cpython-312-x86_64-linux-gnu"
    std::string ext_suffix;            // ".cpython-312-x86_64-linux-gnu.so", ".cp312-win_amd64.pyd"
    std::string sys_platform;          // "linux", "win32", "darwin"
    std::string os_name;               // "posix", "nt"
    std::string platform_system;       // "Linux", "Windows", "Darwin"
    std::string platform_machine;      // "x86_64", "AMD64", "aarch64", "arm64"
    std::string platform_release;
    std::string platform_version;
    std::string sysconfig_platform;    // "linux-x86_64", "win-amd64", "macosx-11.0-arm64"
    std::optional<std::pair<int, int>> glibc;  // (2, 36)
    std::optional<std::pair<int, int>> musl;   // (1, 2)
    std::string prefix;                // sys.prefix
    std::string base_prefix;           // sys.base_prefix
    std::string purelib, platlib, scripts, data, include;  // sysconfig paths of this prefix
    bool site_enabled = true;          // `import site` active (embedded ._pth may disable it)
    // Folders distributions are installed in and imported from, in sys.path order (existing
    // site-packages / dist-packages entries, then purelib and platlib); user site not included.
    std::vector<std::string> site_packages;
    std::string user_site;             // the user site-packages folder when it exists, else ""
    bool user_site_enabled = false;    // a plain run (no -s/-I) puts user_site on sys.path
    bool ran = true;                   // false: derived from files only
    std::vector<std::string> unknown;  // field names that could not be derived
};

// The string and flag fields by name (the names are the JSON keys of the facts cache, the
// interpreter script and --json output): one list, so no serialiser forgets a field.
struct PythonFactsStringField {
    std::string_view name;
    std::string PythonFacts::*member;
};
struct PythonFactsBoolField {
    std::string_view name;
    bool PythonFacts::*member;
};
const std::vector<PythonFactsStringField>& python_facts_string_fields();
const std::vector<PythonFactsBoolField>& python_facts_bool_fields();

}  // namespace envfix::probe
