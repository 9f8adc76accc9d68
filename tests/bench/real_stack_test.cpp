// bench/real_stack.py turns a repacked stack into two variants, copying unchanged zip entries
// compressed as they are (its own zip writer) and rewriting METADATA, RECORD and the compiled
// files of the switch variant. The GPU machine's one benchmark run depends on those wheels being
// valid: envfix checks every local header against the central directory and every file against
// RECORD, so installing both variants with it proves the writer right.
#include <gtest/gtest.h>

#include "support.hpp"

namespace envfix::test {
namespace {

using Json = nlohmann::ordered_json;

Json wheel(const std::string& name, const std::string& version, Json files, Json requires_dist = Json::array()) {
    return {{"name", name}, {"version", version}, {"files", std::move(files)}, {"requires_dist", std::move(requires_dist)}};
}

std::string installed_version(const stdfs::path& venv, const std::string& prefix) {
    for (const auto& lib : stdfs::directory_iterator(venv / "lib"))
        for (const auto& e : stdfs::directory_iterator(lib.path() / "site-packages")) {
            auto n = e.path().filename().string();
            if (n.starts_with(prefix + "-") && n.ends_with(".dist-info")) {
                auto meta = read_text(e.path() / "METADATA");
                auto at = meta.find("\nVersion: ");
                return meta.substr(at + 10, meta.find('\n', at + 1) - at - 10);
            }
        }
    return "";
}

TEST(RealStack, BothVariantsInstallWithEnvfix) {
    TempDir dir("realstack");
    auto files = dir / "idx/files";
    stdfs::create_directories(files);
    // As repack-index.py writes them: no local version, the dist-info folder without one.
    build_wheel(wheel("torch", "2.11.0",
                      {{"torch/__init__.py", "x = 1\n"},
                       {"torch/lib/libtorch_cuda.so", {{"size", 300000}, {"seed", 1}, {"mode", 493}}},
                       {"torch/include/big.h", {{"size", 100000}, {"seed", 2}}}},
                      {"filelock"}),
                files);
    build_wheel(wheel("torchvision", "0.26.0", {{"torchvision/__init__.py", "y = 2\n"},
                                                {"torchvision/_C.so", {{"size", 70000}, {"seed", 3}, {"mode", 493}}}},
                      {"torch==2.11.0"}),
                files);
    build_wheel(wheel("filelock", "3.20.0", {{"filelock/__init__.py", "z = 3\n"}}), files);

    auto r = run_program({test_python().string(), (source_dir() / "bench/real_stack.py").string(), (dir / "idx").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    auto stack = Json::parse(read_text(dir / "idx/stack.json"));
    ASSERT_EQ(stack["order"], Json({"cu130", "cu130.switch"}));
    EXPECT_EQ(stack["variants"]["cu130"]["requirements"], Json({"torch==2.11.0+cu130", "torchvision==0.26.0+cu130"}));
    EXPECT_TRUE(stdfs::exists(dir / "idx/simple/torch/index.html"));
    EXPECT_FALSE(stdfs::exists(files / "torch-2.11.0-py3-none-any.whl"));  // replaced by the two variants

    auto venv = dir / "venv";
    make_venv(venv, true);
    for (std::string variant : {"cu130", "cu130.switch"}) {
        std::vector<std::string> args = {"install", "--env", venv.string()};
        for (const auto& w : stack["variants"][variant]["wheels"]) args.push_back((dir / "idx" / w.get<std::string>()).string());
        auto in = run_envfix(args, {}, dir / "home");
        ASSERT_EQ(in.code, 0) << variant << ": " << in.err;
        EXPECT_EQ(installed_version(venv, "torch"), "2.11.0+" + variant);
        EXPECT_EQ(installed_version(venv, "torchvision"), "0.26.0+" + variant);
    }
    // The switch variant's compiled files changed (16 bytes appended); headers and sources did not.
    auto site = stdfs::directory_iterator(venv / "lib")->path() / "site-packages";
    EXPECT_EQ(stdfs::file_size(site / "torch/lib/libtorch_cuda.so"), 300000u + 16);
    EXPECT_EQ(stdfs::file_size(site / "torchvision/_C.so"), 70000u + 16);
    EXPECT_EQ(stdfs::file_size(site / "torch/include/big.h"), 100000u);
    EXPECT_EQ(read_text(site / "torch/__init__.py"), "x = 1\n");
}

}  // namespace
}  // namespace envfix::test
