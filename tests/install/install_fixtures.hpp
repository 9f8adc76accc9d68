#pragma once
// Shared by the installer's tests: whole-tree snapshots compared byte for byte (paths, types,
// modes, contents, link targets), restoring a tree in place, venv templates, running envfix
// asynchronously (to kill it), and holding an environment's lock from the test.
#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support.hpp"

namespace envfix::test {

struct TreeEntry {
    char type = 'f';     // 'f' file, 'd' folder, 'l' symlink
    unsigned mode = 0;   // permission bits
    std::string data;    // file contents or link target
    bool operator==(const TreeEntry&) const = default;
};
using Tree = std::map<std::string, TreeEntry>;  // path relative to the root, "/"-separated

// Every entry below `root`; `skip` names relative paths left out (with what is below them).
Tree snapshot(const stdfs::path& root, const std::vector<std::string>& skip = {});
// "" when equal, else the first differences, one per line.
std::string tree_diff(const Tree& expected, const Tree& actual, size_t max_lines = 20);
// Makes `root` equal to `model` (a copy elsewhere) while leaving identical files untouched, so
// the interpreter's identity (and envfix's cached facts) stay the same.
void restore_tree(const stdfs::path& root, const stdfs::path& model);
void copy_tree(const stdfs::path& from, const stdfs::path& to);

// `python -m venv --without-pip` at `dir`.
stdfs::path make_bare_venv(const stdfs::path& dir, const stdfs::path& python = test_python());
stdfs::path site_packages(const stdfs::path& venv);  // lib/python3.X/site-packages

// envfix started without waiting (for kill tests): same environment rules as run_envfix.
pid_t spawn_envfix(const std::vector<std::string>& args, const EnvList& env, const stdfs::path& home,
                   const stdfs::path& out_file);
// Waits; returns the exit code, or 128 + signal.
int wait_exit(pid_t pid);

// flock() on a folder, as envfix's environment lock does, held until destruction.
class HeldLock {
public:
    explicit HeldLock(const stdfs::path& dir);
    ~HeldLock();
    HeldLock(const HeldLock&) = delete;

private:
    int fd_ = -1;
};

// One line of stderr (the error) and the exit code of a run.
std::string first_error_line(const RunResult& r);

// `n` pseudo-random bytes from `seed` (garbage files, incompressible entries and streams).
std::string random_bytes(size_t n, unsigned seed);

}  // namespace envfix::test
