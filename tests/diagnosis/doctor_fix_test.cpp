// doctor's Fix line is a command that works on the user's index: the built binary, a real venv
// with an old torch, a stand-in RTX 5090, and a test index served on 127.0.0.1 that lacks the
// matrix's newest torch (as a mirror that has not caught up does).
#include <gtest/gtest.h>

#include <sstream>

#include "index_fixtures.hpp"
#include "pip_envs.hpp"
#include "standin.hpp"
#include "support.hpp"

using namespace envfix;
namespace stdfs = std::filesystem;
namespace standin = envfix::test::standin;
using Json = nlohmann::ordered_json;

namespace {

// The line after "Fix: ", split on spaces (the test's paths hold none).
std::vector<std::string> fix_line_words(const std::string& out) {
    auto at = out.find("\nFix: ");
    if (at == std::string::npos) return {};
    at += 6;
    std::istringstream line(out.substr(at, out.find('\n', at) - at));
    std::vector<std::string> words;
    for (std::string w; line >> w;) words.push_back(w);
    return words;
}

}  // namespace

TEST(DoctorFix, TheFixLineLeavesTheVersionToPlanAndWorksOnAnIndexWithoutTheNewestTorch) {
    test::TempDir d;
    auto python = test::pip_venv(d / "venv");
    test::pip_install(
        python,
        {test::build_wheel(test::torch_wheel({.version = "2.6.0+cu124", .cuda = "12.4", .lib_fixture = "rewritten_torch26_cu124_like.so"}),
                           d / "wheels")});
    // The user's index (in the config file, as a mirror is set once): torch 2.7.0 only.
    test::ServedIndex idx({"--variants", "cu126,cu128", "--torch", "2.7.0", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64"});
    const std::string root = idx.server->url("/");
    test::write_text(d / "home/.config/envfix/config.yaml",
                     "version: 1\npytorch:\n  index: " + root + "\nindex:\n  url: " + root + "cu128/\n");

    auto doctor = test::run_envfix({"doctor", "--python", python.string()}, standin::env("rtx5090-570"), d / "home");
    ASSERT_EQ(doctor.code, 20) << doctor.out << doctor.err;
    auto words = fix_line_words(doctor.out);
    ASSERT_GE(words.size(), 2u) << doctor.out;
    EXPECT_EQ(doctor.out.find("=="), std::string::npos) << doctor.out;
    EXPECT_EQ(words, (std::vector<std::string>{"envfix", "install", "--python", stdfs::absolute(python).lexically_normal().string()}))
        << doctor.out;

    // The line as the user copies it: plan takes the newest torch the index has that serves the GPU.
    std::vector<std::string> args(words.begin() + 1, words.end());
    args.push_back("--json");
    auto install = test::run_envfix(args, standin::env("rtx5090-570"), d / "home", 300);
    ASSERT_EQ(install.code, 0) << install.out << install.err;
    auto j = install.json();
    EXPECT_EQ(j["plan"]["torch"], "2.7.0+cu128") << install.out;
    bool torch_in = false;
    for (const auto& w : j["installed"]) torch_in = torch_in || w["name"] == "torch";
    EXPECT_TRUE(torch_in) << j["installed"].dump();
}
