// contrib/ansible/library/envfix_apply.py through Debian's ansible-playbook, connection local:
// a first run reports changed, a second unchanged, check mode changes nothing (and says it
// would), --diff shows versions before and after, a failing environment fails the task with
// envfix's message.
#include <gtest/gtest.h>

#include "apply_world.hpp"
#include "standin.hpp"

using namespace envfix;
using Json = nlohmann::json;
namespace stdfs = std::filesystem;

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

class Ansible : public ::testing::Test {
protected:
    void SetUp() override {
        if (!find_program("ansible-playbook")) GTEST_SKIP() << "ansible-playbook is not installed (scripts/deps.sh installs ansible-core)";
        test::write_text(playbook_, R"(- hosts: localhost
  gather_facts: false
  tasks:
    - name: GPU stack
      envfix_apply:
        spec: "{{ spec }}"
        envfix: "{{ envfix }}"
)");
    }

    // The envfix_apply task's result; `flags` are ansible-playbook's (--check, --diff).
    Json play(const stdfs::path& spec, const std::vector<std::string>& flags, int expect_rc = 0) {
        std::vector<std::string> argv{"ansible-playbook", "-c", "local", "-i", "localhost,", playbook_.string(),
                                      "-e", "spec=" + spec.string(), "-e", "envfix=" + test::envfix_binary().string(),
                                      "-e", "ansible_python_interpreter=" + test::test_python().string()};
        argv.insert(argv.end(), flags.begin(), flags.end());
        auto env = test::standin::env("h200-580");
        auto home = dir_.path();
        for (auto kv : test::EnvList{{"HOME", home.string()},
                                     {"ENVFIX_CACHE_DIR", (home / ".cache/envfix").string()},
                                     {"ENVFIX_CONFIG_DIR", (home / ".config/envfix").string()},
                                     {"ENVFIX_DATA_DIR", (home / ".local/share/envfix").string()},
                                     {"ANSIBLE_LIBRARY", (test::source_dir() / "contrib/ansible/library").string()},
                                     {"ANSIBLE_CALLBACK_PLUGINS", (test::source_dir() / "tests/apply/callback_plugins").string()},
                                     {"ANSIBLE_STDOUT_CALLBACK", "task_results_json"},
                                     {"ANSIBLE_LOCAL_TEMP", (home / "ansible-tmp").string()},
                                     {"ANSIBLE_REMOTE_TEMP", (home / "ansible-tmp").string()},
                                     {"ANSIBLE_NOCOLOR", "1"},
                                     {"LC_ALL", "C.UTF-8"}})  // ansible-core wants a UTF-8 locale
            env.push_back(kv);
        auto r = test::run_program(argv, env, 600);
        EXPECT_EQ(r.code, expect_rc) << r.out << r.err;
        Json out = Json::parse(r.out, nullptr, false);
        if (out.is_discarded()) {
            ADD_FAILURE() << "not JSON: " << r.out << r.err;
            return {};
        }
        return out["plays"][0]["tasks"][0]["hosts"]["localhost"];
    }

    stdfs::path spec(const std::string& environments) {
        auto p = dir_ / "spec.yaml";
        test::write_text(p, "version: 1\n" + world_.index_section() + "environments:\n" + environments);
        return p;
    }
    std::string venv_entry(const std::string& name, const stdfs::path& venv) {
        return "  - name: " + name + "\n    venv: " + venv.string() + "\n    base-python: " + test::test_python().string() + "\n";
    }

    test::ApplyWorld& world_ = test::ApplyWorld::get();
    test::TempDir dir_{"ansible"};
    stdfs::path playbook_ = dir_ / "site.yml";
};

}  // namespace

TEST_F(Ansible, ChangedThenUnchangedAndCheckModeChangesNothing) {
    auto venv = dir_ / "ws";
    auto s = spec(venv_entry("ws", venv));

    auto check = play(s, {"--check"});
    EXPECT_TRUE(check["changed"].get<bool>()) << check.dump();
    EXPECT_EQ(check["environments"][0]["status"], "would-change");
    EXPECT_FALSE(stdfs::exists(venv));

    auto first = play(s, {"--diff"});
    EXPECT_TRUE(first["changed"].get<bool>()) << first.dump();
    EXPECT_EQ(first["envfix_rc"], 80);
    ASSERT_TRUE(first.contains("diff")) << first.dump();
    EXPECT_TRUE(contains(first["diff"][0]["after"], "torch==2.11.0+cu130\n")) << first["diff"].dump();
    EXPECT_EQ(test::installed_version(venv, "torch"), "2.11.0+cu130");

    auto second = play(s, {});
    EXPECT_FALSE(second["changed"].get<bool>()) << second.dump();
    EXPECT_EQ(second["environments"][0]["status"], "unchanged");

    auto check2 = play(s, {"--check"});
    EXPECT_FALSE(check2["changed"].get<bool>()) << check2.dump();
}

TEST_F(Ansible, AFailingEnvironmentFailsTheTaskWithEnvfixsMessage) {
    auto s = spec("  - name: missing\n    venv: " + (dir_ / "nowhere").string() + "\n");
    auto r = play(s, {}, 2);
    EXPECT_TRUE(r["failed"].get<bool>()) << r.dump();
    EXPECT_TRUE(contains(r["msg"], "missing: no environment at")) << r.dump();
    EXPECT_EQ(r["envfix_rc"], 81);

    auto bad = dir_ / "bad.yaml";
    test::write_text(bad, "version: 7\nenvironments: []\n");
    auto b = play(bad, {}, 2);
    EXPECT_TRUE(b["failed"].get<bool>());
    EXPECT_TRUE(contains(b["msg"], "spec format version 7")) << b.dump();
}

TEST_F(Ansible, TheModuleDocumentationParses) {
    auto r = test::run_program({"ansible-doc", "-t", "module", "envfix_apply"},
                               {{"ANSIBLE_LIBRARY", (test::source_dir() / "contrib/ansible/library").string()},
                                {"HOME", dir_.path().string()},
                                {"ANSIBLE_LOCAL_TEMP", (dir_ / "ansible-tmp").string()},
                                {"LC_ALL", "C.UTF-8"}});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "ENVFIX_APPLY")) << r.out;
    EXPECT_TRUE(contains(r.out, "envfix_rc")) << r.out;  // RETURN parsed too
}
