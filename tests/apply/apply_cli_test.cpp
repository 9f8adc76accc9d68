// `envfix apply`, `lock` and `fetch` end to end: the built binary as the stand-in H200 against the
// test index on 127.0.0.1, real venvs and app folder trees. Idempotence (a second run changes
// nothing and says so), --check, a lock fetched into a folder and applied with no index reachable,
// one failing environment among several, an app conflict found before anything changes.
#include <gtest/gtest.h>

#include <fstream>

#include "app_trees.hpp"
#include "apply_world.hpp"
#include "verify_fixtures.hpp"

using namespace envfix;
using Json = nlohmann::ordered_json;
namespace stdfs = std::filesystem;

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

class ApplyCli : public ::testing::Test {
protected:
    test::ApplyWorld& world = test::ApplyWorld::get();
    test::TempDir dir_{"apply"};

    stdfs::path spec(const std::string& body, const std::string& name = "spec.yaml") {
        auto p = dir_ / name;
        test::write_text(p, "version: 1\n" + world.index_section() + body);
        return p;
    }
    test::RunResult apply(const stdfs::path& spec, std::vector<std::string> extra = {}) {
        std::vector<std::string> args{"apply", "--json", spec.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return test::run_as_h200(args, dir_.path());
    }
    // `envfix lock` of a new venv (the H200's plan) into `lock`.
    void lock_a_venv(const stdfs::path& lock) {
        auto python = test::make_venv(dir_ / "source", true);
        ASSERT_EQ(test::run_as_h200({"lock", "--python", python.string(), "--pytorch-index", world.pytorch_root(), "--index-url",
                                     world.index_url(), "-o", lock.string()},
                                    dir_.path())
                      .code,
                  0);
    }
    std::string venv_entry(const std::string& name, const stdfs::path& venv) {
        return "  - name: " + name + "\n    venv: " + venv.string() + "\n    base-python: " + test::test_python().string() + "\n";
    }
};

const Json* change(const Json& env, const std::string& name) {
    for (const auto& c : env["changes"])
        if (c["name"] == name) return &c;
    return nullptr;
}

}  // namespace

TEST_F(ApplyCli, FirstRunChangesSecondSaysNothingToChange) {
    auto venv = dir_ / "ws";
    auto s = spec("environments:\n" + venv_entry("ws", venv));
    auto first = apply(s);
    ASSERT_EQ(first.code, 80) << first.out << first.err;
    auto j = first.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_TRUE(j["changed"].get<bool>());
    const Json& env = j["environments"][0];
    EXPECT_EQ(env["status"], "changed");
    EXPECT_TRUE(env["created"].get<bool>());
    EXPECT_EQ(env["torch"], "2.11.0+cu130");
    EXPECT_EQ(env["variant"], "cu130");
    ASSERT_NE(change(env, "torch"), nullptr) << first.out;
    EXPECT_TRUE((*change(env, "torch"))["before"].is_null());
    EXPECT_EQ((*change(env, "torch"))["after"], "2.11.0+cu130");
    EXPECT_EQ(env["changes"][0]["name"], "torch");  // the framework first
    EXPECT_TRUE(env["transaction"].is_string());
    ASSERT_TRUE(env["snapshot"].is_string()) << first.out;  // the way back: envfix rollback
    EXPECT_TRUE(env["error"].is_null());
    EXPECT_EQ(test::installed_version(venv, "torch"), "2.11.0+cu130");
    EXPECT_EQ(test::installed_version(venv, "torchvision"), "0.26.0+cu130");

    auto second = apply(s);
    ASSERT_EQ(second.code, 0) << second.out << second.err;
    auto j2 = second.json();
    EXPECT_FALSE(j2["changed"].get<bool>());
    EXPECT_EQ(j2["environments"][0]["status"], "unchanged");
    EXPECT_TRUE(j2["environments"][0]["changes"].empty());
    EXPECT_TRUE(j2["environments"][0]["transaction"].is_null());
    EXPECT_TRUE(j2["environments"][0]["snapshot"].is_null());

    auto text = test::run_as_h200({"apply", s.string()}, dir_.path());
    EXPECT_EQ(text.code, 0) << text.err;
    EXPECT_TRUE(contains(text.out, "ws: up to date (2.11.0+cu130); nothing to change")) << text.out;
    EXPECT_TRUE(contains(text.out, "0 changed, 1 unchanged, 0 failed")) << text.out;
    auto zh = test::run_as_h200({"--lang", "zh", "apply", s.string()}, dir_.path());
    EXPECT_EQ(zh.code, 0) << zh.err;
    EXPECT_TRUE(contains(zh.out, "ws：已是最新（2.11.0+cu130）；无需更改")) << zh.out;
}

TEST_F(ApplyCli, CheckChangesNothingAndSaysWhatWould) {
    auto venv = dir_ / "ws";
    auto s = spec("environments:\n" + venv_entry("ws", venv));
    auto check = apply(s, {"--check"});
    ASSERT_EQ(check.code, 80) << check.out << check.err;
    auto j = check.json();
    EXPECT_TRUE(j["check"].get<bool>());
    EXPECT_EQ(j["environments"][0]["status"], "would-change");
    EXPECT_TRUE(j["environments"][0]["created"].get<bool>());
    EXPECT_NE(change(j["environments"][0], "torch"), nullptr);
    EXPECT_FALSE(stdfs::exists(venv)) << "--check made the venv";

    // An existing venv: --check leaves its site-packages as it was.
    test::make_venv(venv, true);
    auto check2 = apply(s, {"--check"});
    ASSERT_EQ(check2.code, 80) << check2.out << check2.err;
    EXPECT_FALSE(check2.json()["environments"][0]["created"].get<bool>());
    EXPECT_EQ(test::installed_version(venv, "torch"), "");

    ASSERT_EQ(apply(s).code, 80);
    auto after = apply(s, {"--check"});
    EXPECT_EQ(after.code, 0) << after.out;
    EXPECT_EQ(after.json()["environments"][0]["status"], "unchanged");
}

TEST_F(ApplyCli, ASpecChangeMovesTheEnvironmentWithBeforeAndAfter) {
    auto venv = dir_ / "ws";
    auto s = spec("environments:\n" + venv_entry("ws", venv));
    ASSERT_EQ(apply(s).code, 80);
    auto s2 = spec("policy:\n  variant: cu128\nenvironments:\n" + venv_entry("ws", venv));
    auto r = apply(s2);
    ASSERT_EQ(r.code, 80) << r.out << r.err;
    const Json env = r.json()["environments"][0];
    EXPECT_EQ(env["variant"], "cu128");
    ASSERT_NE(change(env, "torch"), nullptr);
    EXPECT_EQ((*change(env, "torch"))["before"], "2.11.0+cu130");
    EXPECT_EQ((*change(env, "torch"))["after"], "2.11.0+cu128");
    ASSERT_NE(change(env, "nvidia-cudnn-cu13"), nullptr) << r.out;  // the CUDA 13 runtime goes
    EXPECT_TRUE((*change(env, "nvidia-cudnn-cu13"))["after"].is_null());
    EXPECT_EQ(test::installed_version(venv, "torch"), "2.11.0+cu128");
    EXPECT_EQ(test::installed_version(venv, "nvidia-cudnn-cu13"), "");
    EXPECT_EQ(apply(s2).code, 0);
}

TEST_F(ApplyCli, LockFetchAndApplyWithNoIndexReachable) {
    // The lock, resolved on a machine with the index.
    auto source = dir_ / "source";
    auto python = test::make_venv(source, true);
    auto lock = dir_ / "ws.lock";
    auto l = test::run_as_h200({"lock", "--json", "--python", python.string(), "--pytorch-index", world.pytorch_root(), "--index-url",
                                world.index_url(), "-o", lock.string()},
                               dir_.path());
    ASSERT_EQ(l.code, 0) << l.out << l.err;
    EXPECT_EQ(l.json()["torch"], "2.11.0+cu130");
    size_t wheels = l.json()["wheels"].get<size_t>();
    ASSERT_GT(wheels, 10u);

    for (std::string layout : {"pep503", "flat"}) {
        SCOPED_TRACE(layout);
        auto folder = dir_ / ("wheels-" + layout);
        auto f = test::run_as_h200({"fetch", "--json", "--lock", lock.string(), "--dest", folder.string(), "--layout", layout}, dir_.path());
        ASSERT_EQ(f.code, 0) << f.out << f.err;
        EXPECT_EQ(f.json()["fetched"], wheels);
        EXPECT_TRUE(stdfs::exists(folder / "index.html"));
        EXPECT_EQ(stdfs::exists(folder / "torch/index.html"), layout == "pep503");
        auto again = test::run_as_h200({"fetch", "--json", "--lock", lock.string(), "--dest", folder.string(), "--layout", layout}, dir_.path());
        EXPECT_EQ(again.json()["present"], wheels) << again.out;

        // The workstation: the lock's URLs lead nowhere (a closed port) and the index is off.
        auto text = test::read_text(lock);
        std::string dead = "http://127.0.0.1:9/";
        for (size_t pos; (pos = text.find(world.pytorch_root())) != std::string::npos;) text.replace(pos, world.pytorch_root().size(), dead);
        auto offline_lock = dir_ / ("offline-" + layout + ".lock");
        test::write_text(offline_lock, text);
        auto venv = dir_ / ("ws-" + layout);
        auto s = dir_ / ("offline-" + layout + ".yaml");
        test::write_text(s, "version: 1\nindex:\n  offline: true\nwheels: " + folder.string() + "\nenvironments:\n" +
                                venv_entry("ws", venv) + "    lock: " + offline_lock.string() + "\n");
        size_t requests = world.server().log().size();
        auto r = apply(s);
        ASSERT_EQ(r.code, 80) << r.out << r.err;
        auto env = r.json()["environments"][0];
        EXPECT_EQ(env["source"], "lock");
        EXPECT_EQ(env["changes"].size(), wheels);
        EXPECT_EQ(test::installed_version(venv, "torch"), "2.11.0+cu130");
        EXPECT_EQ(apply(s).code, 0);
        EXPECT_EQ(world.server().log().size(), requests) << "the index was asked";
    }
}

TEST_F(ApplyCli, AWheelInTheFolderWithOtherBytesFailsAndChangesNothing) {
    auto lock = dir_ / "ws.lock";
    ASSERT_NO_FATAL_FAILURE(lock_a_venv(lock));
    auto folder = dir_ / "wheels";
    ASSERT_EQ(test::run_as_h200({"fetch", "--lock", lock.string(), "--dest", folder.string(), "--layout", "flat"}, dir_.path()).code, 0);
    for (const auto& e : stdfs::directory_iterator(folder))
        if (e.path().filename().string().starts_with("torch-")) std::ofstream(e.path(), std::ios::app) << "x";
    auto venv = dir_ / "ws";
    test::make_venv(venv, true);
    auto s = dir_ / "s.yaml";
    test::write_text(s, "version: 1\nindex:\n  offline: true\nwheels: " + folder.string() + "\nenvironments:\n  - venv: " + venv.string() +
                            "\n    lock: " + lock.string() + "\n");
    auto r = apply(s);
    ASSERT_EQ(r.code, 81) << r.out << r.err;
    auto env = r.json()["environments"][0];
    EXPECT_EQ(env["status"], "failed");
    EXPECT_EQ(env["error"]["name"], "hash-mismatch") << env.dump();
    EXPECT_TRUE(contains(env["error"]["message"], "is not the locked file")) << env.dump();
    EXPECT_EQ(test::installed_version(venv, "torch"), "");
    EXPECT_EQ(test::installed_version(venv, "filelock"), "");  // nothing of the lock went in
}

TEST_F(ApplyCli, OneFailingEnvironmentDoesNotStopTheOthers) {
    auto good = dir_ / "good";
    auto s = spec("environments:\n  - name: missing\n    venv: " + (dir_ / "nowhere").string() + "\n" + venv_entry("good", good));
    auto r = apply(s);
    ASSERT_EQ(r.code, 81) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["summary"]["failed"], 1);
    EXPECT_EQ(j["summary"]["changed"], 1);
    EXPECT_EQ(j["environments"][0]["status"], "failed");
    EXPECT_EQ(j["environments"][0]["error"]["exit_code"], 23);
    EXPECT_EQ(j["environments"][1]["status"], "changed");
    EXPECT_EQ(test::installed_version(good, "torch"), "2.11.0+cu130");
    auto text = test::run_as_h200({"apply", s.string()}, dir_.path());
    EXPECT_EQ(text.code, 81);
    EXPECT_TRUE(contains(text.out, "missing: failed: no environment at")) << text.out;
    EXPECT_TRUE(contains(text.out, "0 changed, 1 unchanged, 1 failed")) << text.out;
}

TEST_F(ApplyCli, AnAppConflictIsReportedBeforeAnythingChanges) {
    auto ok_app = test::make_comfyui_git(dir_ / "ComfyUI");
    auto bad_app = test::make_comfyui_git(dir_ / "ComfyUI-old");
    test::write_text(bad_app / "requirements.txt", "torch<2.10\ntorchvision\ntorchaudio\n");
    auto s = spec("environments:\n  - name: old\n    app: comfyui\n    path: " + bad_app.string() +
                  "\n  - name: comfy\n    app: comfyui\n    path: " + ok_app.string() + "\n");
    auto r = apply(s);
    ASSERT_EQ(r.code, 81) << r.out << r.err;
    auto j = r.json();
    const Json& old = j["environments"][0];
    EXPECT_EQ(old["status"], "failed");
    EXPECT_EQ(old["kind"], "app");
    EXPECT_EQ(old["error"]["name"], "requirements-unmet");
    EXPECT_TRUE(contains(old["error"]["message"], "the change would break ComfyUI; nothing was changed")) << old.dump();
    bool names_file = false;
    for (const auto& f : old["findings"]) names_file = names_file || contains(f["message"], "requirements.txt");
    EXPECT_TRUE(names_file) << old.dump();
    EXPECT_EQ(test::installed_version(bad_app / ".venv", "torch"), "");
    EXPECT_EQ(j["environments"][1]["status"], "changed") << j["environments"][1].dump();
    EXPECT_EQ(test::installed_version(ok_app / ".venv", "torch"), "2.11.0+cu130");
    EXPECT_EQ(test::installed_version(ok_app / ".venv", "torchaudio"), "2.11.0+cu130");
}

// The same check in `envfix install --app` (issue 8): the app's pins against the plan, before
// anything changes.
TEST_F(ApplyCli, InstallForAnAppRefusesAPlanThatBreaksIt) {
    auto app = test::make_comfyui_git(dir_ / "ComfyUI-old");
    test::write_text(app / "requirements.txt", "torch<2.10\ntorchvision\ntorchaudio\n");
    auto r = test::run_as_h200({"install", "--app", "comfyui", "--path", app.string(), "--torch-from", "index",
                                "--index-url", world.index_url(), "-y", "--no-verify"},
                               dir_.path());
    EXPECT_EQ(r.code, 30) << r.out << r.err;  // requirements-unmet
    EXPECT_TRUE(contains(r.err, "the change would break ComfyUI at " + app.string())) << r.err;
    EXPECT_TRUE(contains(r.out + r.err, "requirements.txt")) << r.out << r.err;
    // The ways forward name this app folder, so each can be copied as it is.
    const std::string target = "--app comfyui --path " + app.string();
    EXPECT_TRUE(contains(r.err, "`envfix install " + target + " --ignore-app-constraints`")) << r.err;
    EXPECT_TRUE(contains(r.err, "`envfix plan " + target + " --torch ...`")) << r.err;
    EXPECT_EQ(test::installed_version(app / ".venv", "torch"), "");
    // The app's environment named by its interpreter is still the app's: the same check.
    auto by_python = test::run_as_h200({"install", "--python", (app / ".venv/bin/python").string(), "--torch-from", "index", "--index-url",
                                        world.index_url(), "-y", "--no-verify"},
                                       dir_.path());
    EXPECT_EQ(by_python.code, 30) << by_python.out << by_python.err;
    EXPECT_TRUE(contains(by_python.err, "`envfix install " + target + " --ignore-app-constraints`")) << by_python.err;
    // Going ahead anyway: the conflict is still said, and the snapshot taken first undoes it.
    auto anyway = test::run_as_h200({"install", "--app", "comfyui", "--path", app.string(), "--torch-from", "index", "--index-url",
                                     world.index_url(), "-y", "--no-verify", "--ignore-app-constraints"},
                                    dir_.path());
    EXPECT_EQ(anyway.code, 0) << anyway.out << anyway.err;
    EXPECT_TRUE(contains(anyway.err, "going ahead although the change conflicts with ComfyUI")) << anyway.err;
    EXPECT_EQ(test::installed_version(app / ".venv", "torch"), "2.11.0+cu130");
    EXPECT_TRUE(contains(anyway.out, "`envfix rollback 1 " + target + "`")) << anyway.out;
}

TEST_F(ApplyCli, VerifyRunsBothLevelsAfterAChange) {
    auto venv = dir_ / "ws";
    auto s = spec("policy:\n  verify: true\nenvironments:\n" + venv_entry("ws", venv));
    auto r = apply(s);
    ASSERT_EQ(r.code, 80) << r.out << r.err;
    auto v = r.json()["environments"][0]["verify"];
    EXPECT_TRUE(v["ran"].get<bool>()) << v.dump();
    EXPECT_TRUE(v["passed"].get<bool>()) << v.dump();
    EXPECT_TRUE(v["driver_check"]["passed"].get<bool>()) << v.dump();
    EXPECT_TRUE(v["framework_check"]["passed"].get<bool>()) << v.dump();
    EXPECT_FALSE(v["rolled_back"].get<bool>());
    // Unchanged: nothing to verify.
    EXPECT_TRUE(apply(s).json()["environments"][0]["verify"].is_null());
}

// As `envfix install` does: a change after which the framework fails, where it passed before, is
// undone, byte for byte; the environment fails with install's code (rolled-back, 65).
TEST_F(ApplyCli, AChangeTheFrameworkFailsIsUndone) {
    auto venv = dir_ / "ws";
    ASSERT_EQ(apply(spec("policy:\n  verify: true\nenvironments:\n" + venv_entry("ws", venv))).code, 80);
    auto before = test::verify::tree(venv);
    // 2.9.0's build on this index has no kernels for the GPU.
    auto s = spec("policy:\n  verify: true\n  torch: \"==2.9.0\"\nenvironments:\n" + venv_entry("ws", venv));
    auto r = apply(s);
    ASSERT_EQ(r.code, 81) << r.out << r.err;
    auto env = r.json()["environments"][0];
    EXPECT_EQ(env["status"], "failed");
    EXPECT_FALSE(env["changed"].get<bool>()) << env.dump();
    EXPECT_TRUE(env["transaction"].is_null());
    EXPECT_TRUE(env["verify"]["rolled_back"].get<bool>()) << env.dump();
    EXPECT_EQ(env["verify"]["framework_check"]["outcome"], "no-kernel-image") << env.dump();
    EXPECT_EQ(env["error"]["name"], "rolled-back") << env.dump();
    EXPECT_EQ(env["error"]["exit_code"], 65);
    EXPECT_TRUE(contains(env["error"]["message"], "no kernel image is available")) << env.dump();
    EXPECT_EQ(test::verify::tree(venv), before);
    EXPECT_EQ(test::installed_version(venv, "torch"), "2.11.0+cu130");

    auto text = test::run_as_h200({"apply", s.string()}, dir_.path());
    EXPECT_EQ(text.code, 81);
    EXPECT_TRUE(contains(text.out, "ws: failed: the framework check failed after the install, so it was undone")) << text.out;
    EXPECT_EQ(test::verify::tree(venv), before);
}

TEST_F(ApplyCli, AFailedDriverCheckFailsTheEnvironmentAndKeepsTheChange) {
    auto venv = dir_ / "ws";
    auto s = spec("policy:\n  verify: true\nenvironments:\n" + venv_entry("ws", venv));
    // The stand-in driver returns wrong SAXPY results, as a broken GPU or driver would.
    auto r = test::run_as_h200({"apply", "--json", s.string()}, dir_.path(), {{"ENVFIX_STANDIN_WRONG", "envfix_saxpy"}});
    ASSERT_EQ(r.code, 81) << r.out << r.err;
    auto env = r.json()["environments"][0];
    EXPECT_EQ(env["status"], "failed");
    // The driver level judges the driver and the GPU, not the change: kept, as install keeps it.
    EXPECT_TRUE(env["changed"].get<bool>());
    EXPECT_TRUE(env["transaction"].is_string());
    EXPECT_FALSE(env["verify"]["passed"].get<bool>());
    EXPECT_FALSE(env["verify"]["rolled_back"].get<bool>());
    EXPECT_EQ(env["error"]["name"], "verify-driver-failed") << env.dump();
    EXPECT_TRUE(contains(env["error"]["message"], "verify failed after the change: ")) << env.dump();
    EXPECT_EQ(test::installed_version(venv, "torch"), "2.11.0+cu130");
}

TEST_F(ApplyCli, ABadSpecIsOneLineAndExit3) {
    auto s = dir_ / "bad.yaml";
    test::write_text(s, "version: 1\nenvironments:\n  - venv: /v\n    torchh: '2.7'\n");
    auto r = test::run_as_h200({"apply", s.string()}, dir_.path());
    EXPECT_EQ(r.code, 3);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(contains(r.err, s.string() + ":4: unknown key \"torchh\" in environments[0]")) << r.err;
    auto j = test::run_as_h200({"apply", "--json", s.string()}, dir_.path());
    EXPECT_EQ(j.code, 3);
    EXPECT_EQ(j.json()["error"]["exit_code"], 3);
}

// A policy value no release satisfies is the spec's error (exit 3, file:line) before any
// environment is touched: the missing venv is not made, the existing one keeps every byte.
TEST_F(ApplyCli, AWrongPolicyValueIsRefusedBeforeAnyEnvironmentIsTouched) {
    auto existing = dir_ / "existing";
    test::make_venv(existing, true);
    auto before = test::verify::tree(existing);
    auto fresh = dir_ / "fresh";
    // Lines 1-4: version and index; 5: environments; 6-8: existing; 9-11: fresh; then the value.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"    torch: \"2.99\"\n", ":12: \"torch\" is \"2.99\": no framework release envfix knows matches it"},
        {"    variant: cu999\n", ":12: \"variant\" is \"cu999\": no framework release envfix knows has this variant"},
        {"    torch: \"2.7\"\n    variant: cu130\n", ":13: \"variant\" is \"cu130\": none of the releases the policy allows"}};
    for (const auto& [bad, said] : cases) {
        SCOPED_TRACE(bad);
        auto s = spec("environments:\n" + venv_entry("existing", existing) + venv_entry("fresh", fresh) + bad);
        auto r = test::run_as_h200({"apply", s.string()}, dir_.path());
        EXPECT_EQ(r.code, 3) << r.out << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_TRUE(contains(r.err, s.string() + said)) << r.err;
        EXPECT_FALSE(stdfs::exists(fresh));
        EXPECT_EQ(test::verify::tree(existing), before);
        auto j = test::run_as_h200({"apply", "--json", s.string()}, dir_.path());
        EXPECT_EQ(j.code, 3);
        EXPECT_EQ(j.json()["error"]["name"], "bad-input");
    }
    // A release line the matrix knows is a policy, not an error.
    auto line = spec("environments:\n" + venv_entry("fresh", fresh) + "    torch: \"2.11\"\n");
    auto ok = apply(line, {"--check"});
    EXPECT_EQ(ok.code, 80) << ok.out << ok.err;
}

TEST_F(ApplyCli, ALockFromAMirrorServingTheFetchedFolder) {
    auto lock = dir_ / "ws.lock";
    ASSERT_NO_FATAL_FAILURE(lock_a_venv(lock));
    auto folder = dir_ / "mirror";
    ASSERT_EQ(test::run_as_h200({"fetch", "--lock", lock.string(), "--dest", folder.string()}, dir_.path()).code, 0);
    // The lock's own URLs lead nowhere; the mirror (any static server) has the PEP 503 tree.
    auto text = test::read_text(lock);
    for (size_t pos; (pos = text.find(world.pytorch_root())) != std::string::npos;)
        text.replace(pos, world.pytorch_root().size(), "http://127.0.0.1:9/");
    test::write_text(lock, text);
    test::IndexServer mirror(folder, dir_ / "mirror-server");
    auto venv = dir_ / "ws";
    auto s = dir_ / "mirror.yaml";
    test::write_text(s, "version: 1\nwheels: " + mirror.url("/") + "\nwheels-layout: pep503\nenvironments:\n" + venv_entry("ws", venv) +
                            "    lock: " + lock.string() + "\n");
    auto r = apply(s);
    ASSERT_EQ(r.code, 80) << r.out << r.err;
    EXPECT_EQ(test::installed_version(venv, "torch"), "2.11.0+cu130");
    EXPECT_FALSE(mirror.log_for("/torch/torch-2.11.0%2Bcu130-cp311-cp311-manylinux_2_28_x86_64.whl").empty())
        << nlohmann::json(mirror.log()).dump();
}
