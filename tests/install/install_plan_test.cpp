// The install's Plan stage on its own (installer/src/install_plan.hpp): what goes, every new
// file's one writer, the paths no wheel may write. Real wheels and a real venv; nothing is locked,
// staged or changed.
#include <gtest/gtest.h>

#include "directory_keeper.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/probe/target.hpp"
#include "install_fixtures.hpp"
#include "install_plan.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::test;
using namespace envfix::installer;

namespace {

class Notes final : public Reporter {
public:
    void note(Severity, const Message& m) override { said.push_back(render(m, Lang::En)); }
    bool confirm(const Message&, bool fallback) override { return fallback; }
    int task_begin(const Message&, uint64_t) override { return 1; }
    void task_advance(int, uint64_t) override {}
    void task_end(int, bool) override {}
    bool has(const std::string& part) const {
        return std::any_of(said.begin(), said.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
    }
    std::vector<std::string> said;
};

// A venv with bbb 1.0 installed (bbb/__init__.py, shared/__init__.py), and the plan of a request.
struct PlanCase {
    PlanCase() {
        make_bare_venv(venv);
        auto cache = probe::FactsCache::in_memory();
        env = *probe::resolve_target({.env = venv}, {.facts = {.cache = &cache}});
        WheelSpec b{.name = "bbb", .files = {{"bbb/__init__.py", ""}, {"shared/__init__.py", "from b\n"}}};
        installed = install(env, {.wheels = {{write_wheel(b, dir / "installed")}}}, notes).has_value();
    }
    // The Plan stage up to every new file's writer, as install() runs it.
    Expected<void> plan(const InstallRequest& request) {
        request_ = request;
        ENVFIX_TRY(auto c, make_install_context(env, request_, notes));
        ctx.emplace(std::move(c));
        result = {};
        the_plan = plan_for(request_);
        keeper.emplace(ctx->unpacked_root, the_plan.inputs);
        ENVFIX_TRY_VOID(name_wheels(the_plan, *ctx, *keeper));
        ENVFIX_TRY_VOID(read_what_is_installed(the_plan, *ctx));
        ENVFIX_TRY_VOID(plan_removals(the_plan, *ctx, result));
        ENVFIX_TRY_VOID(check_dependencies(the_plan, *ctx, result));
        return plan_writers(the_plan, *ctx);
    }
    // Who writes `rel` (under site-packages): the wheel's distribution name, "" for none.
    std::string writer_of(const std::string& rel) {
        const auto p = (site_packages(venv) / rel).lexically_normal();
        auto it = the_plan.writer.find(p.native());
        return it == the_plan.writer.end() ? "" : the_plan.inputs[it->second.first].plan.name;
    }
    TempDir dir;
    stdfs::path venv = dir / "v";
    probe::Environment env;
    Notes notes;
    bool installed = false;
    InstallRequest request_;
    std::optional<InstallContext> ctx;
    InstallResult result;
    InstallPlan the_plan;
    std::optional<DirectoryKeeper> keeper;  // after the plan: its thread ends before the wheels go
};

}  // namespace

TEST(InstallPlan, ALaterWheelWinsAPathTwoWheelsWriteAndDifferingContentsAreSaid) {
    PlanCase c;
    ASSERT_TRUE(c.installed);
    WheelSpec x{.name = "xxx", .files = {{"xxx/__init__.py", ""}, {"common/__init__.py", "from x\n"}}};
    WheelSpec y{.name = "yyy", .files = {{"yyy/__init__.py", ""}, {"common/__init__.py", "from y\n"}}};
    auto r = c.plan({.wheels = {{write_wheel(x, c.dir / "w")}, {write_wheel(y, c.dir / "w")}}});
    ASSERT_TRUE(r) << render(r.error().message, Lang::En);
    EXPECT_EQ(c.writer_of("common/__init__.py"), "yyy");
    EXPECT_EQ(c.writer_of("xxx/__init__.py"), "xxx");
    EXPECT_TRUE(c.notes.has("common")) << "two wheels writing one path with different bytes is said";
    EXPECT_TRUE(c.the_plan.removing.empty());
    EXPECT_TRUE(c.the_plan.brings_in());
}

TEST(InstallPlan, AnUpgradeRemovesTheOldFilesButNeverThoseOfWhatStays) {
    PlanCase c;
    ASSERT_TRUE(c.installed);
    // ccc stays and owns a file of its own; bbb 2.0 replaces bbb 1.0 without shared/.
    WheelSpec cc{.name = "ccc", .files = {{"ccc/__init__.py", ""}}};
    ASSERT_TRUE(install(c.env, {.wheels = {{write_wheel(cc, c.dir / "installed")}}}, c.notes));
    WheelSpec b2{.name = "bbb", .version = "2.0", .files = {{"bbb/__init__.py", "2\n"}}};
    auto r = c.plan({.wheels = {{write_wheel(b2, c.dir / "w")}}});
    ASSERT_TRUE(r) << render(r.error().message, Lang::En);
    ASSERT_EQ(c.the_plan.removing.size(), 1u);
    EXPECT_EQ(c.the_plan.removing[0]->version, "1.0");
    auto removes = [&](const std::string& rel) {
        const auto p = (site_packages(c.venv) / rel).lexically_normal().native();
        return std::find(c.the_plan.remove_files.begin(), c.the_plan.remove_files.end(), p) != c.the_plan.remove_files.end();
    };
    EXPECT_TRUE(removes("shared/__init__.py"));
    EXPECT_TRUE(removes("bbb/__init__.py"));
    EXPECT_FALSE(removes("ccc/__init__.py"));
    ASSERT_EQ(c.result.removed.size(), 1u);
    EXPECT_EQ(c.the_plan.summary(), "install bbb 2.0; remove bbb 1.0");
}

TEST(InstallPlan, TheVersionInstalledAlreadyIsSkippedAndChangesNothing) {
    PlanCase c;
    ASSERT_TRUE(c.installed);
    WheelSpec b{.name = "bbb", .files = {{"bbb/__init__.py", ""}, {"shared/__init__.py", "from b\n"}}};
    auto r = c.plan({.wheels = {{write_wheel(b, c.dir / "again")}}});
    ASSERT_TRUE(r) << render(r.error().message, Lang::En);
    ASSERT_EQ(c.the_plan.inputs.size(), 1u);
    EXPECT_TRUE(c.the_plan.inputs[0].skip);
    EXPECT_TRUE(c.the_plan.changes_nothing());
    EXPECT_EQ(c.the_plan.writer.size(), 0u);
}

TEST(InstallPlan, AWheelWritingTheEnvironmentsOwnFilesIsRefusedBeforeAnythingIsStaged) {
    PlanCase c;
    ASSERT_TRUE(c.installed);
    WheelSpec bad{.name = "evil", .files = {{"evil/__init__.py", ""}, {"evil-1.0.data/data/pyvenv.cfg", "home = /nowhere\n"}}};
    auto r = c.plan({.wheels = {{write_wheel(bad, c.dir / "w")}}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::BadWheel);
    EXPECT_NE(render(r.error().message, Lang::En).find("pyvenv.cfg"), std::string::npos) << render(r.error().message, Lang::En);
}

TEST(InstallPlan, TwoWheelsOfOneDistributionAreRefused) {
    PlanCase c;
    ASSERT_TRUE(c.installed);
    WheelSpec one{.name = "ddd", .files = {{"ddd/__init__.py", ""}}};
    WheelSpec two{.name = "DDD", .version = "2.0", .files = {{"ddd/__init__.py", ""}}};
    auto r = c.plan({.wheels = {{write_wheel(one, c.dir / "w")}, {write_wheel(two, c.dir / "w")}}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::Usage);
}
