// Resolving --python / --env / --app + --path (or nothing), and discovering every environment.
#include <gtest/gtest.h>

#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/probe/target.hpp"
#include "layouts.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::probe;
namespace stdfs = std::filesystem;

namespace {

// Records warnings the library reports.
class RecordingReporter final : public Reporter {
public:
    void note(Severity sev, const Message& m) override {
        if (sev == Severity::Warning) warnings.push_back(m);
    }
    bool confirm(const Message&, bool fallback) override { return fallback; }
    int task_begin(const Message&, uint64_t) override { return 0; }
    void task_advance(int, uint64_t) override {}
    void task_end(int, bool) override {}
    std::vector<Message> warnings;
};

// PATH holding only a python3 link to Debian's interpreter.
stdfs::path path_with_python(const stdfs::path& dir) {
    stdfs::create_directories(dir);
    stdfs::create_symlink(test::test_python(), dir / "python3");
    return dir;
}

TEST(Target, ActiveVenvThenCondaThenPythonOnPath) {
    test::TempDir dir;
    test::make_venv(dir / "venv", true);
    auto conda = test::make_conda_prefix(dir / "conda", test::test_python(), "3.11.2");
    auto bin = path_with_python(dir / "pathbin");
    test::EnvChanges e;
    e.set("VIRTUAL_ENV", (dir / "venv").string());
    e.set("CONDA_PREFIX", conda.string());
    e.set("PATH", bin.string());
    auto a = resolve_target({}, {});
    ASSERT_TRUE(a);
    EXPECT_EQ(a->origin, EnvOrigin::Active);
    EXPECT_EQ(a->root, dir / "venv");
    EXPECT_EQ(a->status, EnvStatus::Ok);
    e.set("VIRTUAL_ENV", std::nullopt);
    auto b = resolve_target({}, {});
    ASSERT_TRUE(b);
    EXPECT_EQ(b->kind, EnvKind::Conda);
    e.set("CONDA_PREFIX", std::nullopt);
    auto c = resolve_target({}, {});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->origin, EnvOrigin::PathPython);
    EXPECT_EQ(c->interpreter, bin / "python3");
    EXPECT_EQ(c->status, EnvStatus::Ok);
    e.set("PATH", (dir / "empty").string());
    auto none = resolve_target({}, {});
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, ExitCode::EnvNotFound);
    EXPECT_EQ(none.error().message.key, "env.no_python");
}

TEST(Target, PythonByPathOrName) {
    test::TempDir dir;
    auto bin = path_with_python(dir / "pathbin");
    test::EnvChanges e;
    e.set("PATH", bin.string());
    auto named = resolve_target({.python = "python3"}, {});
    ASSERT_TRUE(named);
    EXPECT_EQ(named->origin, EnvOrigin::GivenPython);
    EXPECT_EQ(named->interpreter, bin / "python3");
    auto by_path = resolve_target({.python = test::test_python()}, {});
    ASSERT_TRUE(by_path);
    EXPECT_EQ(by_path->kind, EnvKind::System);
    for (const stdfs::path& missing : {stdfs::path("python9.99"), dir / "nope" / "python"}) {
        auto r = resolve_target({.python = missing}, {});
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, ExitCode::EnvNotFound);
        EXPECT_NE(render(r.error().message, Lang::En).find(missing.string()), std::string::npos);
    }
}

TEST(Target, ConflictingOrIncompleteOptionsAreUsageErrors) {
    auto both = resolve_target({.python = "python3", .env = "/x"}, {});
    ASSERT_FALSE(both);
    EXPECT_EQ(both.error().code, ExitCode::Usage);
    auto app_only = resolve_target({.app = "comfyui"}, {});
    ASSERT_FALSE(app_only);
    EXPECT_EQ(app_only.error().code, ExitCode::Usage);
    EXPECT_EQ(app_only.error().message.key, "env.app_without_path");
}

TEST(Target, BrokenEnvIsReturnedAndRefusedWhereARunIsNeeded) {
    test::TempDir dir;
    test::make_venv(dir / "venv", true);
    for (const char* n : {"python", "python3", "python3.11"}) stdfs::remove(dir / "venv/bin" / n);
    auto env = resolve_target({.env = dir / "venv"}, {});
    ASSERT_TRUE(env);
    EXPECT_EQ(env->status, EnvStatus::Broken);
    auto run = require_runnable(*env);
    ASSERT_FALSE(run);
    EXPECT_EQ(run.error().code, ExitCode::EnvBroken);
    auto missing = resolve_target({.env = dir / "nope"}, {});
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ExitCode::EnvNotFound);
}

TEST(Target, AppFolders) {
    test::TempDir dir;
    // ComfyUI portable: python_embeded/ beside ComfyUI/.
    auto portable = dir / "ComfyUI_windows_portable";
    test::make_embedded(portable / "python_embeded", "python312.zip\n.\nLib/site-packages\n../ComfyUI\nimport site\n");
    stdfs::create_directories(portable / "ComfyUI");
    RecordingReporter rep;
    auto env = resolve_target({.app = "comfyui", .app_path = portable}, {.reporter = &rep});
    ASSERT_TRUE(env);
    EXPECT_EQ(env->kind, EnvKind::Embedded);
    EXPECT_EQ(env->origin, EnvOrigin::App);
    EXPECT_EQ(env->app, "comfyui");
    EXPECT_EQ(env->status, EnvStatus::FilesOnly);
    EXPECT_TRUE(rep.warnings.empty());
    // A1111 from git: venv/ inside the app folder; a second env (.venv) is mentioned.
    auto a1111 = dir / "stable-diffusion-webui";
    test::make_venv(a1111 / "venv", true);
    test::make_venv(a1111 / ".venv", true);
    auto env2 = resolve_target({.app = "a1111", .app_path = a1111}, {.reporter = &rep});
    ASSERT_TRUE(env2);
    EXPECT_EQ(env2->root, a1111 / "venv");
    EXPECT_EQ(env2->status, EnvStatus::Ok);
    ASSERT_EQ(rep.warnings.size(), 1u);
    EXPECT_EQ(rep.warnings[0].key, "env.app_several");
    EXPECT_EQ(env2->notes.size(), 1u);
    // --path alone is an app folder of any app.
    auto generic = resolve_target({.app_path = a1111}, {});
    ASSERT_TRUE(generic);
    EXPECT_EQ(generic->root, a1111 / "venv");
    // Nothing inside.
    stdfs::create_directories(dir / "empty-app");
    auto none = resolve_target({.app = "forge", .app_path = dir / "empty-app"}, {});
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, ExitCode::EnvNotFound);
    EXPECT_EQ(none.error().message.key, "env.app_no_env");
    auto gone = resolve_target({.app = "forge", .app_path = dir / "gone"}, {});
    ASSERT_FALSE(gone);
    EXPECT_EQ(gone.error().message.key, "env.not_found");
}

TEST(Target, AppLayoutsHaveAGenericFallback) {
    ASSERT_FALSE(app_layouts().empty());
    EXPECT_EQ(app_layouts().back().name, "");
    auto c = app_layouts().back().candidates("/apps/x");
    EXPECT_EQ(c.front(), stdfs::path("/apps/x/python_embeded"));
}

TEST(Target, DiscoverEveryEnvironmentOnce) {
    test::TempDir dir;
    auto home = dir / "home";
    test::make_venv(home / ".virtualenvs" / "a", true);
    test::make_venv(home / ".virtualenvs" / "b", true);
    test::write_text(home / ".virtualenvs" / "not-an-env.txt", "x");
    auto conda = test::make_conda_prefix(dir / "miniconda3" / "envs" / "sd", test::test_python(), "3.11.2");
    test::write_text(home / ".conda" / "environments.txt",
                     "# made by conda\n" + conda.string() + "\n" + (dir / "deleted-env").string() + "\n\n");
    auto app = dir / "ComfyUI_windows_portable";
    test::make_embedded(app / "python_embeded", "python312.zip\n.\nimport site\n");
    auto bin = path_with_python(dir / "pathbin");
    test::EnvChanges e;
    e.set("HOME", home.string());
    e.set("PATH", bin.string());
    e.set("CONDA_PREFIX", std::nullopt);
    e.set("VIRTUAL_ENV", (home / ".virtualenvs" / "b").string());  // active and listed: once
    auto cache = FactsCache::in_memory();
    auto envs = discover_environments({.app_paths = {app}, .app = "comfyui", .facts = {.cache = &cache}});
    std::vector<std::string> got;
    for (const auto& env : envs)
        got.push_back(std::string(env_origin_name(env.origin)) + ":" + stdfs::relative(env.root, dir.path()).string() + ":" +
                      std::string(env_status_name(env.status)));
    EXPECT_EQ(got, (std::vector<std::string>{"active:home/.virtualenvs/b:ok",
                                             "app:ComfyUI_windows_portable/python_embeded:files-only",
                                             "virtualenvs:home/.virtualenvs/a:ok", "conda:miniconda3/envs/sd:ok"}));
    auto no_home = discover_environments({.home = false, .facts = {.cache = &cache}});
    EXPECT_EQ(no_home.size(), 1u);
}

}  // namespace
