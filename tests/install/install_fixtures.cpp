#include "install_fixtures.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <set>

extern char** environ;

namespace envfix::test {

Tree snapshot(const stdfs::path& root, const std::vector<std::string>& skip) {
    Tree t;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(root, stdfs::directory_options::none, ec);
         !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        std::string rel = it->path().lexically_relative(root).generic_string();
        bool skipped = false;
        for (const auto& s : skip)
            if (rel == s || rel.rfind(s + "/", 0) == 0) skipped = true;
        if (skipped) {
            if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
            continue;
        }
        struct stat st {};
        ::lstat(it->path().c_str(), &st);
        TreeEntry e;
        e.mode = st.st_mode & 07777;
        if (S_ISLNK(st.st_mode)) {
            e.type = 'l';
            e.data = stdfs::read_symlink(it->path()).string();
            e.mode = 0;
        } else if (S_ISDIR(st.st_mode)) {
            e.type = 'd';
        } else {
            e.data = read_text(it->path());
        }
        t[rel] = std::move(e);
    }
    return t;
}

std::string tree_diff(const Tree& a, const Tree& b, size_t max_lines) {
    std::string out;
    size_t n = 0;
    auto line = [&](const std::string& s) {
        if (n++ < max_lines) out += s + "\n";
    };
    for (const auto& [k, v] : a) {
        auto it = b.find(k);
        if (it == b.end()) line("missing: " + k);
        else if (!(it->second == v)) {
            std::string why = it->second.type != v.type ? "type" : it->second.mode != v.mode ? "mode" : "content";
            line("differs (" + why + "): " + k);
        }
    }
    for (const auto& [k, v] : b)
        if (!a.count(k)) line("extra: " + k);
    if (n > max_lines) out += "... " + std::to_string(n - max_lines) + " more\n";
    return out;
}

void copy_tree(const stdfs::path& from, const stdfs::path& to) {
    stdfs::remove_all(to);
    stdfs::create_directories(to.parent_path());
    stdfs::copy(from, to, stdfs::copy_options::recursive | stdfs::copy_options::copy_symlinks);
    // std::filesystem::copy keeps file modes but gives folders default ones: copy those too.
    for (auto it = stdfs::recursive_directory_iterator(from); it != stdfs::recursive_directory_iterator(); ++it)
        if (it->is_directory() && !it->is_symlink())
            stdfs::permissions(to / it->path().lexically_relative(from), it->status().permissions());
}

void restore_tree(const stdfs::path& root, const stdfs::path& model) {
    Tree want = snapshot(model);
    Tree have = snapshot(root);
    // Remove what the model lacks or holds differently (deepest first).
    for (auto it = have.rbegin(); it != have.rend(); ++it) {
        auto w = want.find(it->first);
        if (w == want.end() || !(w->second == it->second) ||
            (it->second.type == 'd' && w->second.type != 'd')) {
            std::error_code ec;
            stdfs::remove_all(root / it->first, ec);
        }
    }
    have = snapshot(root);
    for (const auto& [rel, e] : want) {
        if (have.count(rel)) continue;
        auto dst = root / rel;
        if (e.type == 'd') {
            stdfs::create_directories(dst);
            stdfs::permissions(dst, static_cast<stdfs::perms>(e.mode));
        } else if (e.type == 'l') {
            stdfs::create_symlink(e.data, dst);
        } else {
            stdfs::copy_file(model / rel, dst);
            stdfs::permissions(dst, static_cast<stdfs::perms>(e.mode));
        }
    }
}

stdfs::path make_bare_venv(const stdfs::path& dir, const stdfs::path& python) { return make_venv(dir, true, python); }

stdfs::path site_packages(const stdfs::path& venv) {
    for (const auto& e : stdfs::directory_iterator(venv / "lib"))
        if (e.path().filename().string().rfind("python", 0) == 0) return e.path() / "site-packages";
    ADD_FAILURE() << "no site-packages in " << venv;
    return {};
}

pid_t spawn_envfix(const std::vector<std::string>& args, const EnvList& env, const stdfs::path& home, const stdfs::path& out_file) {
    std::vector<std::string> envs;
    static const std::set<std::string> scrub = {"VIRTUAL_ENV", "CONDA_PREFIX", "LANG", "LC_ALL", "LC_MESSAGES", "PYTHONPATH", "PYTHONHOME"};
    for (char** e = environ; e && *e; ++e) {
        std::string kv(*e);
        std::string k = kv.substr(0, kv.find('='));
        if (scrub.count(k) || (k.rfind("ENVFIX_", 0) == 0 && k != "ENVFIX_KEEP_TEST_DIRS")) continue;
        envs.push_back(kv);
    }
    envs.push_back("HOME=" + home.string());
    envs.push_back("ENVFIX_CACHE_DIR=" + (home / ".cache/envfix").string());
    envs.push_back("ENVFIX_CONFIG_DIR=" + (home / ".config/envfix").string());
    envs.push_back("ENVFIX_DATA_DIR=" + (home / ".local/share/envfix").string());
    for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
    std::vector<std::string> argv{envfix_binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> av, ev;
    for (auto& a : argv) av.push_back(a.data());
    av.push_back(nullptr);
    for (auto& e : envs) ev.push_back(e.data());
    ev.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, av[0], &fa, nullptr, av.data(), ev.data());
    posix_spawn_file_actions_destroy(&fa);
    EXPECT_EQ(rc, 0) << "cannot start envfix: " << std::strerror(rc);
    return pid;
}

int wait_exit(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

HeldLock::HeldLock(const stdfs::path& dir) {
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    EXPECT_GE(fd_, 0);
    EXPECT_EQ(::flock(fd_, LOCK_EX), 0);
}
HeldLock::~HeldLock() {
    if (fd_ >= 0) ::close(fd_);
}

std::string first_error_line(const RunResult& r) {
    auto pos = r.err.find("envfix: error: ");
    if (pos == std::string::npos) return "";
    auto end = r.err.find('\n', pos);
    return r.err.substr(pos, end - pos);
}

std::string random_bytes(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
}

}  // namespace envfix::test
