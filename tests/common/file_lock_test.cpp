#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "envfix/common/file_lock.hpp"
#include "envfix/common/fs.hpp"
#include "support.hpp"

namespace envfix {
namespace {

using Target = fs::FileLock::Target;

// The child's exit status: 0 when `acquire` there fails with ExitCode::Locked.
int locked_in_child(const std::filesystem::path& p, Target target) {
    pid_t pid = ::fork();
    if (pid == 0) {
        auto second = fs::FileLock::acquire(p, {.target = target});
        ::_exit(!second && second.error().code == ExitCode::Locked ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(FileLock, LockFileIsExclusiveAcrossProcessesAndNamesItsHolder) {
    test::TempDir d;
    auto lock = fs::FileLock::acquire(d / "lock", {});
    ASSERT_TRUE(lock);
    EXPECT_EQ(locked_in_child(d / "lock", Target::File), 0);
    auto text = fs::read_file(d / "lock");
    ASSERT_TRUE(text);
    EXPECT_EQ(*text, std::to_string(::getpid()) + "\n");
}

TEST(FileLock, FolderIsLockedInPlaceWithNothingWritten) {
    test::TempDir d;
    std::filesystem::create_directory(d / "env");
    auto lock = fs::FileLock::acquire(d / "env", {.target = Target::Folder});
    ASSERT_TRUE(lock);
    EXPECT_EQ(locked_in_child(d / "env", Target::Folder), 0);
    EXPECT_TRUE(std::filesystem::is_empty(d / "env"));
}

TEST(FileLock, HeldLockFailsInTheCallersWords) {
    test::TempDir d;
    auto held = fs::FileLock::acquire(d.path(), {.target = Target::Folder});
    ASSERT_TRUE(held);
    auto again = fs::FileLock::acquire(d.path(), {.target = Target::Folder, .words = {.locked = "install.locked"}});
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, ExitCode::Locked);
    EXPECT_EQ(again.error().message.key, "install.locked");
    auto missing = fs::FileLock::acquire(d / "absent", {.target = Target::Folder, .words = {.unopenable = ExitCode::EnvNotFound}});
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ExitCode::EnvNotFound);
}

TEST(FileLock, WaitingSaysSoThenTakesTheLockWhenReleased) {
    test::TempDir d;
    auto held = fs::FileLock::acquire(d / "lock", {});
    ASSERT_TRUE(held);
    std::thread releaser([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        held = fs::FileLock::acquire(d / "other", {});  // the first lock let go
    });
    std::vector<std::string> told;
    auto lock = fs::FileLock::acquire(d / "lock", {.wait = true, .on_wait = [&](const Message& m) { told.push_back(m.key); }});
    releaser.join();
    EXPECT_TRUE(lock);
    EXPECT_EQ(told, std::vector<std::string>{"fs.lock_waiting"});
}

}  // namespace
}  // namespace envfix
