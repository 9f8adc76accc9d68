#include <gtest/gtest.h>

#include "envfix/common/file_lock.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/process.hpp"
#include "support.hpp"

#include <chrono>
#include <thread>

using namespace envfix;

TEST(Process, CapturesOutputAndExitCode) {
    auto r = run_process({.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"}});
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->exited);
    EXPECT_EQ(r->exit_code, 3);
    EXPECT_EQ(r->out, "out\n");
    EXPECT_EQ(r->err, "err\n");
}

TEST(Process, PassesArgvWithoutAShell) {
    auto r = run_process({.argv = {"printf", "%s|", "a b", "$HOME", ";rm"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->out, "a b|$HOME|;rm|");
}

TEST(Process, EnvironmentIsSetAndUnset) {
    setenv("ENVFIX_TEST_GONE", "1", 1);
    auto r = run_process({.argv = {"sh", "-c", "echo ${ENVFIX_TEST_SET}-${ENVFIX_TEST_GONE:-unset}"},
                          .set_env = {{"ENVFIX_TEST_SET", "yes"}},
                          .unset_env = {"ENVFIX_TEST_GONE"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->out, "yes-unset\n");
}

TEST(Process, StdinIsDelivered) {
    ProcessSpec spec{.argv = {"cat"}};
    spec.stdin_data = std::string(200000, 'x');
    auto r = run_process(spec);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->out.size(), 200000u);
}

TEST(Process, TimeoutKillsTheChildAndItsChildren) {
    ProcessSpec spec{.argv = {"sh", "-c", "sleep 30 & sleep 30"}};
    spec.timeout = std::chrono::milliseconds(200);
    auto r = run_process(spec);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->timed_out);
    EXPECT_LT(r->elapsed.count(), 5000);
}

TEST(Process, MissingProgramIsAnError) {
    auto r = run_process({.argv = {"/nonexistent/program"}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.key, "process.start_failed");
}

TEST(Process, WorkingDirectory) {
    ProcessSpec spec{.argv = {"pwd"}};
    spec.cwd = "/tmp";
    auto r = run_process(spec);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->out, "/tmp\n");
}

TEST(Process, ChildThatIgnoresStdinDoesNotKillUs) {
    ProcessSpec spec{.argv = {"true"}};
    spec.stdin_data = std::string(4 << 20, 'x');  // more than a pipe holds
    auto r = run_process(spec);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->ok());
}

// A detached program goes on after the call returns, with none of the caller's descriptors: a
// lock the caller held (an environment's flock) is free once the caller lets it go.
TEST(Process, ADetachedProgramRunsOnWithoutTheCallersDescriptors) {
    envfix::test::TempDir dir;
    const auto lock_file = dir.path() / "lock", done = dir.path() / "done";
    auto held = fs::FileLock::acquire(lock_file, {});
    ASSERT_TRUE(held);
    auto started = std::chrono::steady_clock::now();
    ASSERT_TRUE(start_detached({"/bin/sh", "-c", "sleep 1; echo ran > \"$0\"", done.string()}));
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(900)) << "not waited for";
    held = fs::FileLock::acquire(dir.path() / "other", {});  // the first lock let go
    EXPECT_TRUE(fs::FileLock::acquire(lock_file, {})) << "the detached program holds the caller's lock";
    for (int i = 0; i < 200 && !std::filesystem::exists(done); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(envfix::test::read_text(done), "ran\n");
    EXPECT_FALSE(start_detached({"/no/such/program"}));
    // An executable file that exec refuses: the spawn fails, the double fork tried after it fails
    // the same way, and its reason is exec's.
    const auto junk = dir.path() / "junk";
    envfix::test::write_text(junk, std::string("\x7f\x45\x4c\x46 not a program", 20));
    std::filesystem::permissions(junk, std::filesystem::perms::owner_all);
    auto refused = start_detached({junk.string()});
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().message.key, "process.start_failed");
    EXPECT_NE(refused.error().message.arg("reason").find("format"), std::string::npos) << refused.error().message.arg("reason");
    auto self = current_executable();
    ASSERT_TRUE(self);
    EXPECT_EQ(self->filename(), "common_tests");
}
