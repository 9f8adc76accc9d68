// The lock file: made from a plan, written and read back, refused with one line when it is not
// one; and what installing it changes in an environment (lock_changes).
#include <gtest/gtest.h>

#include "envfix/common/message.hpp"
#include "envfix/installer/lock_file.hpp"

using namespace envfix;
using namespace envfix::installer;

namespace {

const std::string kHash(64, 'a');

plan::PlannedWheel wheel(const std::string& name, const std::string& version, bool framework = false) {
    plan::PlannedWheel w;
    w.name = name;
    w.canonical_name = name;
    w.version = version;
    w.filename = name + "-" + version + "-py3-none-any.whl";
    w.url = "http://idx/" + w.filename;
    w.sha256 = kHash;
    w.size = 1234;
    w.framework = framework;
    return w;
}

plan::Plan plan_of(std::vector<plan::PlannedWheel> wheels) {
    plan::Plan p;
    p.torch = "2.11.0+cu130";
    p.variant = "cu130";
    p.channel = "stable";
    p.target.python = "3.11.2";
    p.target.platform = "linux-x86_64";
    p.install = std::move(wheels);
    return p;
}

standards::InstalledDist dist(const std::string& name, const std::string& version) {
    standards::InstalledDist d;
    d.name = name;
    d.canonical_name = name;
    d.version = version;
    d.parsed_version = standards::Version::try_parse(version);
    return d;
}

std::string text_of(const Error& e) { return render(e.message, Lang::En); }

}  // namespace

TEST(LockFile, RoundTripsAPlanSortedByName) {
    auto lock = lock_from_plan(plan_of({wheel("torch", "2.11.0+cu130", true), wheel("filelock", "3.18.0")}));
    ASSERT_TRUE(lock);
    auto text = serialize_lock(*lock);
    auto back = parse_lock(text, "ws.lock");
    ASSERT_TRUE(back) << text_of(back.error());
    ASSERT_EQ(back->wheels.size(), 2u);
    EXPECT_EQ(back->wheels[0].name, "filelock");
    EXPECT_EQ(back->wheels[1].version, "2.11.0+cu130");
    EXPECT_TRUE(back->wheels[1].framework);
    EXPECT_EQ(back->wheels[1].size, 1234u);
    EXPECT_EQ(back->torch, "2.11.0+cu130");
    EXPECT_EQ(back->python, "3.11.2");
    EXPECT_EQ(serialize_lock(*back), text);
}

TEST(LockFile, AWheelWithoutHashCannotBeLocked) {
    auto w = wheel("torch", "2.12.0.dev20250101+cu130");
    w.sha256.clear();
    auto lock = lock_from_plan(plan_of({w}));
    ASSERT_FALSE(lock);
    EXPECT_EQ(text_of(lock.error()), "the index gives no sha256 for " + w.filename + ", and a lock needs one");
}

struct BadLock {
    const char* name;
    std::string text;
    std::string expected;
};
class LockFileBad : public ::testing::TestWithParam<BadLock> {};

TEST_P(LockFileBad, OneLineNamingTheFile) {
    auto l = parse_lock(GetParam().text, "/srv/ws.lock");
    ASSERT_FALSE(l);
    EXPECT_EQ(l.error().code, ExitCode::BadInput);
    EXPECT_EQ(text_of(l.error()), GetParam().expected);
}

namespace {
std::string with_wheel(const std::string& fields) {
    return R"({"version": 1, "kind": "envfix-lock", "wheels": [{)" + fields + "}]}";
}
const std::string kGood = R"("name": "torch", "version": "2.11.0", "filename": "torch-2.11.0-cp311-cp311-linux_x86_64.whl", "url": "http://i/t.whl")";
}  // namespace

INSTANTIATE_TEST_SUITE_P(
    Table, LockFileBad,
    ::testing::Values(
        BadLock{"not_json", "{", "/srv/ws.lock is not an envfix lock file: not a JSON object"},
        BadLock{"plan_file", R"({"version": 1, "torch": "2.11.0"})", "/srv/ws.lock is not an envfix lock file: \"kind\" is not \"envfix-lock\""},
        BadLock{"newer", R"({"version": 2, "kind": "envfix-lock", "wheels": []})",
                "/srv/ws.lock is a lock of format version 2; this envfix reads version 1"},
        BadLock{"no_wheels", R"({"version": 1, "kind": "envfix-lock"})", "/srv/ws.lock is not an envfix lock file: no \"wheels\" list"},
        BadLock{"no_hash", with_wheel(kGood),
                "/srv/ws.lock is not an envfix lock file: wheels[0]: \"sha256\" missing or not a string"},
        BadLock{"short_hash", with_wheel(kGood + R"(, "sha256": "abc")"),
                "/srv/ws.lock is not an envfix lock file: wheels[0] (torch-2.11.0-cp311-cp311-linux_x86_64.whl): sha256 is not 64 "
                "lower-case hex digits"},
        BadLock{"path_in_filename",
                with_wheel(R"("name": "torch", "version": "2.11.0", "filename": "../t.whl", "url": "u", "sha256": ")" + kHash + "\""),
                "/srv/ws.lock is not an envfix lock file: wheels[0]: \"../t.whl\" is not a wheel file name"},
        BadLock{"bad_version",
                with_wheel(R"("name": "torch", "version": "two", "filename": "t.whl", "url": "u", "sha256": ")" + kHash + "\""),
                "/srv/ws.lock is not an envfix lock file: wheels[0]: \"two\" is not a version"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LockChanges, NothingWhenEveryLockedWheelIsInstalled) {
    auto lock = *lock_from_plan(plan_of({wheel("torch", "2.11.0+cu130", true), wheel("filelock", "3.18.0")}));
    standards::InstalledSet set;
    set.dists = {dist("filelock", "3.18.0"), dist("pillow", "11.0.0"), dist("torch", "2.11.0+CU130")};
    auto c = lock_changes(lock, set);
    EXPECT_TRUE(c.empty());
    EXPECT_EQ(c.unchanged, 2u);
}

TEST(LockChanges, ReplacesOtherVersionsAndTakesTheOldStackOut) {
    auto lock = *lock_from_plan(plan_of({wheel("torch", "2.11.0+cu130", true), wheel("nvidia-cudnn-cu13", "9.19.0.56")}));
    standards::InstalledSet set;
    set.dists = {dist("nvidia-cudnn-cu12", "9.7.1.26"), dist("pillow", "11.0.0"), dist("torch", "2.7.0+cu128"),
                 dist("torchvision", "0.22.0+cu128"), dist("xformers", "0.0.30")};
    auto c = lock_changes(lock, set);
    ASSERT_EQ(c.install.size(), 2u);
    EXPECT_EQ(c.install[1].wheel.name, "torch");
    EXPECT_EQ(c.install[1].before, "2.7.0+cu128");
    EXPECT_EQ(c.install[0].before, "");
    std::vector<std::string> removed;
    for (const auto& r : c.remove) removed.push_back(r.name);
    EXPECT_EQ(removed, (std::vector<std::string>{"nvidia-cudnn-cu12", "torchvision", "xformers"}));  // pillow stays
}

TEST(LockChanges, ALockWithoutRuntimeWheelsKeepsThemUnlessItIsTheCpuBuild) {
    auto lock = *lock_from_plan(plan_of({wheel("torch", "2.11.0+cu130", true)}));  // a Windows-like lock
    standards::InstalledSet set;
    set.dists = {dist("nvidia-cudnn-cu12", "9.7.1.26")};
    EXPECT_TRUE(lock_changes(lock, set).remove.empty());
    lock.variant = "cpu";
    EXPECT_EQ(lock_changes(lock, set).remove.size(), 1u);
}
