#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "envfix/common/fs.hpp"
#include "support.hpp"

using namespace envfix;

TEST(Fs, AtomicWriteReplacesAndLeavesNoTemp) {
    test::TempDir d;
    auto p = d / "f.txt";
    ASSERT_TRUE(fs::write_file_atomic(p, "one"));
    ASSERT_TRUE(fs::write_file_atomic(p, "two"));
    EXPECT_EQ(*fs::read_file(p), "two");
    int count = 0;
    for (auto& e : std::filesystem::directory_iterator(d.path())) { (void)e; ++count; }
    EXPECT_EQ(count, 1);
}

TEST(Fs, WriteIntoReadOnlyFolderIsPermissionDenied) {
    if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions";
    test::TempDir d;
    ::chmod(d.path().c_str(), 0555);
    auto r = fs::write_file_atomic(d / "f", "x");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::PermissionDenied);
}

TEST(Fs, ReadMissingFileNamesIt) {
    auto r = fs::read_file("/nonexistent/x");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.arg("path"), "/nonexistent/x");
}

// /proc files say 0 bytes and /sys files 4096 whatever they hold; the probe reads the boot id and
// /sys/module/nvidia/version through read_file.
TEST(Fs, ReadsPseudoFilesToTheirEnd) {
    auto boot = fs::read_file("/proc/sys/kernel/random/boot_id");
    ASSERT_TRUE(boot) << render(boot.error().message, Lang::En);
    EXPECT_EQ(boot->size(), 37u) << *boot;  // a UUID and a newline
    const char* sys_file = "/sys/kernel/mm/transparent_hugepage/enabled";
    if (!std::filesystem::exists(sys_file)) GTEST_SKIP() << sys_file << " is not on this machine";
    auto sys = fs::read_file(sys_file);
    ASSERT_TRUE(sys) << render(sys.error().message, Lang::En);
    EXPECT_FALSE(sys->empty());
    EXPECT_LT(sys->size(), 4096u);
}

TEST(Fs, MapAndIdentity) {
    test::TempDir d;
    test::write_text(d / "m", "hello");
    auto m = fs::MappedFile::open(d / "m");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->bytes(), "hello");
    auto a = fs::identity(d / "m");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->size, 5u);
    test::write_text(d / "m", "hello!");
    EXPECT_NE(*a, *fs::identity(d / "m"));
    test::write_text(d / "empty", "");
    auto e = fs::MappedFile::open(d / "empty");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->size(), 0u);
}

TEST(Fs, LockIsExclusiveAcrossProcesses) {
    test::TempDir d;
    auto lock = fs::FileLock::acquire(d / "lock", false);
    ASSERT_TRUE(lock);
    pid_t pid = ::fork();
    if (pid == 0) {
        auto second = fs::FileLock::acquire(d / "lock", false);
        ::_exit(!second && second.error().code == ExitCode::Locked ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
