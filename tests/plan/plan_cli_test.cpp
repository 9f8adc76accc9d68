// `envfix plan` end to end: the built binary against a PyTorch-like index (mkindex.py: cpu, cu126,
// cu128, cu130, nightly/cu130) and a PyPI-like one (mkpypi.py) served on 127.0.0.1, the stand-in
// driver libraries answering as this machine's GPUs, real venvs as targets.
#include <set>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <regex>

#include "index_fixtures.hpp"
#include "layouts.hpp"
#include "standin.hpp"
#include "support.hpp"

using namespace envfix;
namespace standin = envfix::test::standin;
using Json = nlohmann::ordered_json;
namespace stdfs = std::filesystem;

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// A flat index made by mkpypi.py from `spec`, in `dir`.
stdfs::path make_flat_index(const stdfs::path& dir, const Json& spec) {
    auto spec_file = dir / "pypi-spec.json";
    test::write_text(spec_file, spec.dump());
    auto r = test::run_program({test::test_python().string(), (test::source_dir() / "tests/plan/mkpypi.py").string(),
                                (dir / "pypi").string(), spec_file.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    return dir / "pypi";
}

Json pure(const std::string& name, const std::string& version, std::vector<std::string> requires_dist = {},
          const std::string& requires_python = "") {
    Json s{{"name", name}, {"version", version}, {"tags", {"py3-none-any"}}, {"requires_dist", requires_dist}};
    if (!requires_python.empty()) s["requires_python"] = requires_python;
    return s;
}

// The world every test shares: the indexes take seconds to build, so they are built once.
struct World {
    std::unique_ptr<test::ServedIndex> torch;
    std::unique_ptr<test::TempDir> pypi_dir;
    std::unique_ptr<test::IndexServer> pypi;
};
World* world = nullptr;

class PlanCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        world = new World;
        world->torch = std::make_unique<test::ServedIndex>(std::vector<std::string>{
            "--torch", "2.7.0,2.9.0,2.11.0", "--pythons", "cp310,cp311", "--platforms", "manylinux_2_28_x86_64,win_amd64"});
        // The ordinary dependencies, as PyPI has them: newer than the PyTorch index's copies, and
        // a sympy whose newest release needs an mpmath this Python cannot install (backtracking).
        world->pypi_dir = std::make_unique<test::TempDir>("pypi");
        Json spec;
        spec["wheels"] = Json::array({
            pure("filelock", "3.16.1"), pure("filelock", "3.18.0"), pure("typing-extensions", "4.12.2"),
            pure("setuptools", "78.1.0"), pure("sympy", "1.14.0", {"mpmath>=1.4"}),
            pure("sympy", "1.13.3", {"mpmath<1.4,>=1.1.0"}), pure("mpmath", "1.3.0"), pure("mpmath", "1.4.0", {}, ">=3.99"),
            pure("networkx", "3.4.2"), pure("jinja2", "3.1.6", {"MarkupSafe>=2.0"}), pure("markupsafe", "3.0.2"),
            pure("fsspec", "2025.3.2")});
        spec["metadata"] = true;
        auto root = make_flat_index(world->pypi_dir->path(), spec);
        world->pypi = std::make_unique<test::IndexServer>(root, world->pypi_dir->path() / "server");
    }
    static void TearDownTestSuite() {
        delete world;
        world = nullptr;
    }

    std::string torch_root() const { return world->torch->server->url("/"); }
    std::string pypi_url() const { return world->pypi->url("/simple/"); }

    std::vector<std::string> online(const std::vector<std::string>& extra) const {
        std::vector<std::string> a{"plan", "--json", "--pytorch-index", torch_root(), "--index-url", pypi_url()};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }

    stdfs::path venv(bool with_pip = false) {
        auto python = test::make_venv(dir_ / "venv", !with_pip);
        return python;
    }

    test::RunResult run(const std::vector<std::string>& args, const test::EnvList& env) {
        return test::run_envfix(args, env, dir_.path(), 300);
    }

    test::TempDir dir_;
};

const Json* package(const Json& j, const std::string& name) {
    for (const auto& p : j["packages"])
        if (p["name"] == name) return &p;
    return nullptr;
}

std::vector<std::string> keys_of(const Json& list) {
    std::vector<std::string> out;
    for (const auto& m : list) out.push_back(m["key"].get<std::string>());
    return out;
}

bool has_key(const Json& list, const std::string& key) {
    auto k = keys_of(list);
    return std::find(k.begin(), k.end(), key) != k.end();
}

void expect_complete_wheels(const Json& j) {
    for (const auto& p : j["packages"]) {
        EXPECT_TRUE(p["url"].get<std::string>().starts_with("http://127.0.0.1:")) << p.dump();
        EXPECT_EQ(p["sha256"].get<std::string>().size(), 64u) << p.dump();
        EXPECT_TRUE(p["size"].is_number_unsigned() && p["size"] > 0) << p.dump();
        EXPECT_FALSE(p["version"].get<std::string>().empty());
    }
}

}  // namespace

TEST_F(PlanCli, Rtx5090OnDriver570TakesCu128) {
    auto python = venv();
    auto r = run(online({"--python", python.string()}), standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["variant"], "cu128");
    EXPECT_EQ(j["channel"], "stable");
    EXPECT_EQ(j["torch"], "2.11.0+cu128");
    EXPECT_TRUE(j["error"].is_null());
    EXPECT_EQ(j["target"]["gpus"][0], "NVIDIA GeForce RTX 5090 (sm_120)");
    EXPECT_EQ(j["target"]["driver"], "570.133.07");
    ASSERT_NE(package(j, "torch"), nullptr) << r.out;
    const Json& torch = *package(j, "torch");
    EXPECT_EQ(torch["version"], "2.11.0+cu128");
    EXPECT_TRUE(contains(torch["url"], "/cu128/torch-2.11.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl")) << torch["url"];
    EXPECT_TRUE(torch["framework"].get<bool>());
    EXPECT_EQ(torch["metadata"], "pep658");
    // Companions from the same variant's index; dependencies from PyPI first, the rest from the variant index.
    EXPECT_EQ((*package(j, "torchvision"))["version"], "0.26.0+cu128");
    EXPECT_EQ((*package(j, "torchaudio"))["version"], "2.11.0+cu128");
    EXPECT_EQ((*package(j, "triton"))["version"], "3.6.0");
    EXPECT_EQ((*package(j, "nvidia-cudnn-cu12"))["version"], "9.7.1.26");
    EXPECT_TRUE(contains((*package(j, "nvidia-cudnn-cu12"))["index"], "/cu128/"));
    EXPECT_EQ((*package(j, "filelock"))["version"], "3.18.0");
    EXPECT_TRUE(contains((*package(j, "filelock"))["index"], pypi_url()));
    EXPECT_NE(package(j, "numpy"), nullptr);  // torchvision's, found only on the variant index
    for (const auto& p : j["packages"]) {
        if (p["framework"].get<bool>()) {
            EXPECT_TRUE(contains(p["url"], "/cu128/")) << p.dump();
        }
    }
    expect_complete_wheels(j);
    EXPECT_TRUE(j["remove"].empty());
    auto reasons = keys_of(j["reasons"]);
    EXPECT_TRUE(has_key(j["reasons"], "plan.reason.index_found")) << r.out;
    // sympy 1.14.0 wants an mpmath this Python cannot install: the resolver went back to 1.13.3.
    EXPECT_EQ((*package(j, "sympy"))["version"], "1.13.3");
    EXPECT_EQ((*package(j, "mpmath"))["version"], "1.3.0");
    EXPECT_TRUE(has_key(j["reasons"], "plan.reason.backtracked")) << r.out;
}

TEST_F(PlanCli, TextOutputPutsTheChoiceFirst) {
    auto python = venv();
    auto r = run({"plan", "--python", python.string(), "--pytorch-index", torch_root(), "--index-url", pypi_url()},
                 standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(r.out.starts_with("torch 2.11.0+cu128 (cu128, stable)\nthis machine: NVIDIA GeForce RTX 5090 (sm_120); driver 570.133.07"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "\nwhy:\n  - ")) << r.out;
    EXPECT_TRUE(contains(r.out, "considered and not chosen:")) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("install [0-9]+ wheel\\(s\\), [0-9.]+ KiB:"))) << r.out;
    EXPECT_TRUE(contains(r.out, "run `envfix install` with the same options")) << r.out;
    auto zh = run({"plan", "--lang", "zh", "--python", python.string(), "--pytorch-index", torch_root(), "--index-url", pypi_url()},
                  standin::env("rtx5090-570"));
    ASSERT_EQ(zh.code, 0) << zh.err;
    EXPECT_TRUE(contains(zh.out, "原因：")) << zh.out;
}

TEST_F(PlanCli, H200OnDriver580TakesCu130AndFallsBackToWhatTheIndexHas) {
    auto python = venv();
    auto r = run(online({"--python", python.string()}), standin::env("h200-580"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["variant"], "cu130");
    EXPECT_EQ(j["torch"], "2.11.0+cu130");
    // The matrix's newer cu130 releases are not on this index: said, and listed.
    EXPECT_TRUE(has_key(j["reasons"], "plan.reason.index_fallback")) << r.out;
    ASSERT_FALSE(j["alternatives"].empty());
    EXPECT_EQ(j["alternatives"][0]["torch"], "2.14.0");
    EXPECT_EQ(j["alternatives"][0]["variant"], "cu130");
    EXPECT_EQ(j["alternatives"][0]["why"][0]["key"], "plan.index.no_version");
    EXPECT_TRUE(contains(j["alternatives"][0]["why"][0]["message"], "(newest there: 2.11.0+cu130)")) << r.out;
    // 2.11.0+cu130's dependencies: the CUDA 13 toolkit through cuda-toolkit's extras.
    ASSERT_NE(package(j, "cuda-toolkit"), nullptr);
    EXPECT_NE(package(j, "nvidia-cublas"), nullptr);
    EXPECT_NE(package(j, "nvidia-cudnn-cu13"), nullptr);
    EXPECT_NE(package(j, "cuda-bindings"), nullptr);
    EXPECT_EQ(package(j, "nvidia-cufile"), package(j, "nvidia-cufile"));
    for (const auto& p : j["packages"]) EXPECT_FALSE(contains(p["name"], "-cu12")) << p["name"];
    expect_complete_wheels(j);
}

TEST_F(PlanCli, Gtx1080TiOnDriver580TakesCu126) {
    auto python = venv();
    auto r = run(online({"--python", python.string()}), standin::env("gtx1080ti-580"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["variant"], "cu126");
    EXPECT_EQ(j["torch"], "2.11.0+cu126");
    EXPECT_EQ((*package(j, "nvidia-cudnn-cu12"))["version"], "9.5.1.17");
}

TEST_F(PlanCli, ForcedVariantThatCannotServeTheGpuIsRefused) {
    auto python = venv();
    auto r = run(online({"--python", python.string(), "--variant", "cu128"}), standin::env("gtx1080ti-580"));
    EXPECT_EQ(r.code, 40) << r.out << r.err;
    auto j = r.json();
    ASSERT_TRUE(j["error"].is_object()) << r.out;
    EXPECT_EQ(j["error"]["exit_code"], 40);
    EXPECT_EQ(j["error"]["name"], "nothing-fits");
    EXPECT_TRUE(contains(j["error"]["message"], "GTX 1080 Ti")) << r.out;
    EXPECT_TRUE(j["error"]["hint"].is_string()) << r.out;
    EXPECT_TRUE(contains(j["error"]["hints"].dump(), "cu126")) << r.out;  // the variant that would
    EXPECT_TRUE(j["packages"].empty());
    // Each considered build says why not: here, no sm_61 kernels.
    EXPECT_TRUE(contains(j["alternatives"].dump(), "sm_61")) << r.out;
    EXPECT_TRUE(contains(r.err, "envfix: error: no torch build fits this machine")) << r.err;
}

TEST_F(PlanCli, TorchBelow27OnRtx5090FitsNothing) {
    auto python = venv();
    auto r = run(online({"--python", python.string(), "--torch", "<2.7"}), standin::env("rtx5090-570"));
    EXPECT_EQ(r.code, 40) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["error"]["name"], "nothing-fits");
    // Not "try nightly": a newer torch is what serves Blackwell.
    EXPECT_TRUE(contains(j["error"]["hints"].dump(), "is outside <2.7")) << j["error"].dump();
    EXPECT_FALSE(contains(j["error"]["hints"].dump(), "--channel nightly")) << j["error"].dump();
}

TEST_F(PlanCli, OfflineDecidesFromTheMatrixAlone) {
    auto python = venv();
    // An index nothing listens on: offline never asks it.
    auto r = run({"plan", "--json", "--offline", "--python", python.string(), "--pytorch-index", "http://127.0.0.1:9/whl"},
                 standin::env("h200-580"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_TRUE(j["offline"].get<bool>());
    EXPECT_EQ(j["variant"], "cu130");
    EXPECT_EQ(j["torch"], "2.14.0");
    EXPECT_TRUE(j["packages"].empty());
    EXPECT_TRUE(j["framework_index"].is_null());
    auto text = run({"plan", "--offline", "--python", python.string()}, standin::env("h200-580"));
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_TRUE(text.out.starts_with("torch 2.14.0 (cu130, stable), decided from the matrix alone")) << text.out;
}

TEST_F(PlanCli, IndexThatIsNotThereIsAClearError) {
    auto python = venv();
    auto r = run({"plan", "--json", "--python", python.string(), "--pytorch-index", world->torch->server->url("/nothing"),
                  "--index-url", pypi_url()},
                 standin::env("rtx5090-570"));
    EXPECT_EQ(r.code, 51) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["error"]["name"], "http-status");
    std::string line = r.err.substr(0, r.err.find('\n'));
    EXPECT_TRUE(contains(line, "envfix: error: " + world->torch->server->url("/nothing/cu128/torch/") + " answered HTTP 404")) << r.err;
    EXPECT_TRUE(contains(line, "does not look like a PyTorch index")) << r.err;
}

TEST_F(PlanCli, AnotherMachineWindowsRtx4090) {
    auto r = run(online({"--gpu", "RTX 4090", "--driver", "560.35.03", "--os", "windows", "--python", "3.10"}), standin::no_driver_env());
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_FALSE(j["target"]["this_machine"].get<bool>());
    EXPECT_EQ(j["target"]["platform"], "windows-x86_64");
    EXPECT_EQ(j["target"]["driver"], "560.35.03");
    EXPECT_TRUE(j["target"]["environment"].is_null());
    EXPECT_TRUE(contains(j["target"]["best_tag"], "cp310-cp310-win_amd64")) << r.out;
    const Json* torch = package(j, "torch");
    ASSERT_NE(torch, nullptr) << r.out;
    EXPECT_TRUE(contains((*torch)["filename"], "-cp310-cp310-win_amd64.whl")) << r.out;
    EXPECT_TRUE(contains(j["variant"].get<std::string>(), "cu12")) << r.out;
    // Windows wheels bundle CUDA: no nvidia-* runtime wheels, no triton.
    for (const auto& p : j["packages"]) {
        EXPECT_FALSE(contains(p["name"], "nvidia")) << p["name"];
        EXPECT_NE(p["name"], "triton");
    }
    // 560.35.03 is below CUDA 12.6's Windows minimum: allowed under minor-version compatibility, with a warning.
    EXPECT_TRUE(has_key(j["warnings"], "plan.warn.minor_compat")) << r.out;
}

TEST_F(PlanCli, KeepsAnInstalledDependencyThatSatisfies) {
    auto python = venv(true);
    auto pip = test::run_program({python.string(), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q",
                                  (world->pypi_dir->path() / "pypi/files/filelock-3.16.1-py3-none-any.whl").string()});
    ASSERT_EQ(pip.code, 0) << pip.err;
    auto r = run(online({"--python", python.string()}), standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(package(j, "filelock"), nullptr) << r.out;  // 3.18.0 is newer, 3.16.1 satisfies torch: it stays
    bool kept = false;
    for (const auto& k : j["keep"])
        if (k["name"] == "filelock" && k["version"] == "3.16.1") kept = true;
    EXPECT_TRUE(kept) << j["keep"].dump();
}

TEST_F(PlanCli, OldCu12StackGoesOutTogether) {
    auto python = venv(true);
    auto pip = test::run_program({python.string(), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q",
                                  "--find-links", (world->torch->dir.path() / "whl/cu126").string(), "torch==2.7.0+cu126",
                                  "torchvision==0.22.0+cu126", "torchaudio==2.7.0+cu126"});
    ASSERT_EQ(pip.code, 0) << pip.err;
    // xformers built for the old torch; the test index has none for the new one.
    auto xformers = test::build_wheel({{"name", "xformers"}, {"version", "0.0.30"}, {"tags", {"cp311-cp311-manylinux_2_28_x86_64"}},
                                       {"requires_dist", {"torch==2.7.0", "numpy"}}},
                                      dir_ / "wheels");
    pip = test::run_program({python.string(), "-m", "pip", "install", "--no-index", "--no-deps", "--disable-pip-version-check", "-q",
                             xformers.string()});
    ASSERT_EQ(pip.code, 0) << pip.err;
    auto r = run(online({"--python", python.string()}), standin::env("h200-580"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["torch"], "2.11.0+cu130");
    EXPECT_TRUE(has_key(j["warnings"], "plan.warn.dropped")) << j["warnings"].dump();
    const Json* torch = package(j, "torch");
    ASSERT_NE(torch, nullptr);
    EXPECT_EQ((*torch)["replaces"]["version"], "2.7.0+cu126");
    EXPECT_TRUE(contains((*torch)["replaces"]["dist_info"], "torch-2.7.0+cu126.dist-info"));
    EXPECT_EQ((*package(j, "triton"))["replaces"]["version"], "3.3.0");
    // Every nvidia-*-cu12 runtime goes, with the reason; nothing of CUDA 12 is installed or kept.
    std::vector<std::string> removed;
    for (const auto& x : j["remove"]) {
        removed.push_back(x["name"]);
        if (x["name"] == "xformers") {
            EXPECT_EQ(x["reason"]["message"], "xformers was built for the old torch, and the index has no xformers for torch 2.11.0+cu130");
            continue;
        }
        EXPECT_EQ(x["reason"]["key"], "plan.remove.runtime") << x.dump();
        EXPECT_EQ(x["reason"]["message"], "CUDA 12 runtime of the old stack; the new build uses CUDA 13");
    }
    EXPECT_EQ(removed.size(), 15u) << j["remove"].dump();
    EXPECT_NE(std::find(removed.begin(), removed.end(), "xformers"), removed.end());
    EXPECT_NE(std::find(removed.begin(), removed.end(), "nvidia-cudnn-cu12"), removed.end());
    for (const auto& k : j["keep"]) EXPECT_FALSE(contains(k["name"], "-cu12")) << k["name"];
    // The pure dependencies pip installed from the cu126 folder satisfy: they stay.
    EXPECT_FALSE(j["keep"].empty());
    auto text = run({"plan", "--python", python.string(), "--pytorch-index", torch_root(), "--index-url", pypi_url()},
                    standin::env("h200-580"));
    EXPECT_TRUE(contains(text.out, "remove 15:\n  - nvidia-")) << text.out;
}

TEST_F(PlanCli, NoWheelForThisPythonFallsBackAndSaysWhy) {
    test::ServedIndex idx({"--variants", "cu128", "--torch", "2.9.0,2.11.0", "--pythons", "cp311,cp312", "--platforms",
                           "manylinux_2_28_x86_64"});
    // The index lost 2.11.0's cp311 wheel.
    auto page = idx.dir.path() / "whl/cu128/torch/index.html";
    std::string html = test::read_text(page), kept;
    size_t pos = 0;
    for (size_t nl; (nl = html.find('\n', pos)) != std::string::npos; pos = nl + 1) {
        std::string line = html.substr(pos, nl - pos + 1);
        if (!contains(line, "torch-2.11.0%2Bcu128-cp311")) kept += line;
    }
    test::write_text(page, kept);
    auto python = venv();
    auto r = run({"plan", "--json", "--python", python.string(), "--pytorch-index", idx.server->url("/"), "--index-url", pypi_url()},
                 standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["torch"], "2.9.0+cu128");
    EXPECT_EQ((*package(j, "torchvision"))["version"], "0.24.0+cu128");
    ASSERT_FALSE(j["alternatives"].empty());
    EXPECT_EQ(j["alternatives"][0]["torch"], "2.11.0");
    EXPECT_EQ(j["alternatives"][0]["why"][0]["key"], "plan.index.no_tag");
    std::string why = j["alternatives"][0]["why"][0]["message"];
    EXPECT_TRUE(contains(why, "has no wheel for cp311-cp311-manylinux")) << why;
    EXPECT_TRUE(contains(why, "(only cp312-cp312-manylinux_2_28_x86_64)")) << why;
}

TEST_F(PlanCli, MetadataFromRangesOrTheWholeWheelThenFromTheCache) {
    test::ServedIndex idx({"--variants", "cu128", "--torch", "2.11.0", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64",
                           "--no-metadata"});
    auto python = venv();
    auto args = std::vector<std::string>{"plan", "--json", "--python", python.string(), "--pytorch-index", idx.server->url("/"),
                                         "--index-url", idx.server->url("/cu128/")};
    auto r = run(args, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ((*package(j, "torch"))["metadata"], "range");
    expect_complete_wheels(j);
    auto again = run(args, standin::env("rtx5090-570"));
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ((*package(again.json(), "torch"))["metadata"], "cache");
    // A server that ignores Range (python -m http.server): the whole wheel, once.
    idx.server->set_faults({{"*", {{"no_range", true}}}});
    auto whole = test::run_envfix(args, standin::env("rtx5090-570"), dir_ / "other-home", 300);
    ASSERT_EQ(whole.code, 0) << whole.err;
    EXPECT_EQ((*package(whole.json(), "torch"))["metadata"], "wheel");
    EXPECT_TRUE(stdfs::is_empty(dir_ / "other-home/.cache/envfix/plan-wheels"));  // read and dropped
}

// A system without libarchive (Ubuntu's minimal images): a METADATA read by ranges is plain
// deflate, inflated without it.
TEST_F(PlanCli, MetadataFromRangesNeedsNoLibarchive) {
    test::ServedIndex idx({"--variants", "cu128", "--torch", "2.11.0", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64",
                           "--no-metadata"});
    auto python = venv();
    auto env = standin::env("rtx5090-570");
    env.emplace_back("ENVFIX_LIBARCHIVE", "/nonexistent/libarchive.so.13");
    auto r = run({"plan", "--json", "--python", python.string(), "--pytorch-index", idx.server->url("/"), "--index-url",
                  idx.server->url("/cu128/")},
                 env);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ((*package(r.json(), "torch"))["metadata"], "range");
}

TEST_F(PlanCli, PagesStillFreshAreNotAskedForAgainUnlessRefreshed) {
    test::ServedIndex idx({"--variants", "cu128", "--torch", "2.11.0", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64"});
    auto python = venv();
    auto args = std::vector<std::string>{"plan", "--json", "--python", python.string(), "--pytorch-index", idx.server->url("/"),
                                         "--index-url", idx.server->url("/cu128/")};
    auto pages = [&] {
        std::vector<nlohmann::json> out;
        for (const auto& e : idx.server->log())
            if (e["path"] == "/cu128/torch/") out.push_back(e);  // (a variant not on this index, 404, is asked each time)
        return out;
    };
    auto first = run(args, standin::env("rtx5090-570"));
    ASSERT_EQ(first.code, 0) << first.out << first.err;
    const auto asked = pages().size();
    ASSERT_GE(asked, 1u);
    // The test server sends Last-Modified without Cache-Control: fresh for 600 s, as uv takes it.
    auto again = run(args, standin::env("rtx5090-570"));
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(pages().size(), asked);
    auto files = [](const Json& j) {
        std::vector<std::string> out;
        for (const auto& p : j["packages"]) out.push_back(p["filename"].get<std::string>());
        return out;
    };
    EXPECT_EQ(files(again.json()), files(first.json()));
    auto v = args;
    v.push_back("-vv");
    v.push_back("--refresh");
    auto refreshed = run(v, standin::env("rtx5090-570"));
    ASSERT_EQ(refreshed.code, 0) << refreshed.err;
    auto log = pages();
    ASSERT_EQ(log.size(), 2 * asked);
    EXPECT_TRUE(log.back()["headers"].contains("if-none-match"));
    EXPECT_TRUE(contains(refreshed.err, "unchanged since the cached copy")) << refreshed.err;
}

TEST_F(PlanCli, FrameworkFromOneFlatIndexOfPyPIBuilds) {
    // The H200 check's index: repack-index.py's layout, PyPI's torch (no +cu130), no PEP 658, no Range.
    test::TempDir src("flat");
    auto made = test::make_index(src / "whl", {"--variants", "cu130", "--torch", "2.11.0", "--pythons", "cp311", "--platforms",
                                               "manylinux_2_28_x86_64", "--no-metadata"});
    Json spec{{"copy", Json::array()}, {"strip_local", Json::array()}, {"metadata", false}};
    for (const auto& e : stdfs::directory_iterator(src / "whl/cu130")) {
        std::string name = e.path().filename().string();
        if (!name.ends_with(".whl")) continue;
        bool framework = name.starts_with("torch-") || name.starts_with("torchvision-") || name.starts_with("torchaudio-");
        (framework ? spec["strip_local"] : spec["copy"]).push_back(e.path().string());
    }
    auto root = make_flat_index(src.path(), spec);
    test::IndexServer flat(root, src / "server");
    flat.set_faults({{"*", {{"no_range", true}}}});
    auto python = venv();
    for (bool forced : {false, true}) {
        std::vector<std::string> args{"plan", "--json", "--python", python.string(), "--torch-from", "index",
                                      "--index-url", flat.url("/simple/"), "--pytorch-index", "http://127.0.0.1:9/whl"};
        if (forced) args.insert(args.end(), {"--variant", "cu130"});
        auto r = run(args, standin::env("h200-580"));
        ASSERT_EQ(r.code, 0) << r.out << r.err;
        auto j = r.json();
        EXPECT_EQ(j["variant"], "cu130");
        EXPECT_EQ(j["torch"], "2.11.0");
        const Json* torch = package(j, "torch");
        ASSERT_NE(torch, nullptr);
        EXPECT_EQ((*torch)["filename"], "torch-2.11.0-cp311-cp311-manylinux_2_28_x86_64.whl");
        EXPECT_TRUE(contains((*torch)["url"], flat.url("/files/")));
        EXPECT_TRUE((*torch)["metadata"] == "wheel" || (*torch)["metadata"] == "cache") << (*torch)["metadata"];
        EXPECT_EQ((*package(j, "torchvision"))["version"], "0.26.0");
        EXPECT_NE(package(j, "cuda-toolkit"), nullptr);
        expect_complete_wheels(j);
    }
}

TEST_F(PlanCli, OneFlatIndexWithEveryVariantGivesTheLabelAskedFor) {
    // A mirror or a local index holding +cu126 and +cu130 builds in one list (bench/compare.py's
    // index): the pinned label picks the build, companions carry torch's label, and a forced
    // variant finds its build instead of stopping at the highest label.
    test::TempDir src("flat-labels");
    test::make_index(src / "whl", {"--variants", "cu126,cu130", "--torch", "2.11.0", "--pythons", "cp311", "--platforms",
                                   "manylinux_2_28_x86_64"});
    Json spec{{"copy", Json::array()}, {"metadata", true}};
    std::set<std::string> seen;
    for (const char* variant : {"whl/cu126", "whl/cu130"})
        for (const auto& e : stdfs::directory_iterator(src / variant))
            if (e.path().extension() == ".whl" && seen.insert(e.path().filename().string()).second)
                spec["copy"].push_back(e.path().string());
    auto root = make_flat_index(src.path(), spec);
    test::IndexServer flat(root, src / "server");
    auto python = venv();
    auto plan = [&](std::vector<std::string> extra) {
        std::vector<std::string> args{"plan", "--json", "--python", python.string(), "--torch-from", "index",
                                      "--index-url", flat.url("/simple/"), "--pytorch-index", "http://127.0.0.1:9/whl"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run(args, standin::env("h200-580"));
    };
    struct Case {
        std::vector<std::string> extra;
        std::string variant;
    };
    for (const auto& c : std::vector<Case>{{{"--torch", "==2.11.0+cu126"}, "cu126"},
                                           {{"--variant", "cu126"}, "cu126"},
                                           {{}, "cu130"},
                                           {{"--torch", "==2.11.0+cu130"}, "cu130"}}) {
        auto r = plan(c.extra);
        ASSERT_EQ(r.code, 0) << r.out << r.err;
        auto j = r.json();
        EXPECT_EQ(j["variant"], c.variant) << j.dump();
        EXPECT_EQ(j["torch"], "2.11.0+" + c.variant);
        ASSERT_NE(package(j, "torchvision"), nullptr);
        EXPECT_EQ((*package(j, "torchvision"))["version"], "0.26.0+" + c.variant);
        EXPECT_EQ((*package(j, "torchaudio"))["version"], "2.11.0+" + c.variant);
    }
}

TEST_F(PlanCli, AnEnvironmentThatHasTheBuildKeepsIt) {
    auto python = venv(true);
    auto pip = test::run_program({python.string(), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q",
                                  "--find-links", (world->torch->dir.path() / "whl/cu130").string(), "torch==2.11.0+cu130",
                                  "torchvision==0.26.0+cu130", "torchaudio==2.11.0+cu130"});
    ASSERT_EQ(pip.code, 0) << pip.err;
    auto r = run(online({"--python", python.string()}), standin::env("h200-580"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["torch"], "2.11.0+cu130");
    EXPECT_TRUE(j["packages"].empty()) << j["packages"].dump();
    EXPECT_TRUE(j["remove"].empty()) << j["remove"].dump();
    std::vector<std::string> kept;
    for (const auto& k : j["keep"]) kept.push_back(k["name"]);
    EXPECT_NE(std::find(kept.begin(), kept.end(), "torch"), kept.end());
    EXPECT_NE(std::find(kept.begin(), kept.end(), "nvidia-cublas"), kept.end());
    auto text = run({"plan", "--python", python.string(), "--pytorch-index", torch_root(), "--index-url", pypi_url()},
                    standin::env("h200-580"));
    EXPECT_TRUE(contains(text.out, "nothing to install: the environment already has this build")) << text.out;
    EXPECT_FALSE(contains(text.out, "envfix install")) << text.out;
}

TEST_F(PlanCli, IndexWithoutTheVariantsThatFitFitsNothing) {
    test::ServedIndex idx({"--variants", "cpu,cu126", "--torch", "2.11.0", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64",
                           "--only", "torch"});
    auto python = venv();
    auto r = run({"plan", "--json", "--python", python.string(), "--pytorch-index", idx.server->url("/"), "--index-url", pypi_url()},
                 standin::env("rtx5090-570"));
    EXPECT_EQ(r.code, 40) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["error"]["key"], "plan.index.nothing_fits");
    EXPECT_TRUE(contains(j["error"]["hint"], idx.server->url("/cu128/torch/") + " is not on the index (HTTP 404)")) << j["error"].dump();
    EXPECT_TRUE(j["packages"].empty());
}

TEST_F(PlanCli, AnOrdinaryIndexThatCannotBeReadIsPassedOver) {
    test::write_text(dir_ / ".config/envfix/config.yaml", "version: 1\nnetwork:\n  retries: 0\n");
    auto python = venv();
    auto r = run({"plan", "--json", "--python", python.string(), "--pytorch-index", torch_root(), "--index-url",
                  "http://127.0.0.1:9/simple/", "--extra-index-url", pypi_url()},
                 standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["torch"], "2.11.0+cu128");
    EXPECT_TRUE(contains((*package(j, "filelock"))["index"], pypi_url()));  // the extra index answered
    size_t said = 0;
    for (const auto& w : j["warnings"])
        if (w["key"] == "plan.warn.index_failed") {
            ++said;
            EXPECT_TRUE(contains(w["message"], "127.0.0.1:9")) << w.dump();
        }
    EXPECT_EQ(said, 1u) << j["warnings"].dump();
}

TEST_F(PlanCli, ComfyUIPortableReadFromItsFilesGetsWindowsWheels) {
    // A Windows embeddable Python cannot run here: its layout is read from files (python311._pth),
    // and it is planned with Windows tags; the torch it has is replaced.
    auto app = dir_ / "ComfyUI_windows_portable";
    auto embedded = test::make_embedded(app / "python_embeded", "python311.zip\n.\nimport site\n", "python311._pth");
    stdfs::rename(embedded / "python312.zip", embedded / "python311.zip");
    stdfs::rename(embedded / "python312.dll", embedded / "python311.dll");
    auto info = embedded / "Lib/site-packages/torch-2.7.0+cu126.dist-info";
    test::write_text(info / "METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.7.0+cu126\nRequires-Dist: filelock\n");
    test::write_text(info / "RECORD", "torch-2.7.0+cu126.dist-info/METADATA,,\n");
    test::write_text(info / "INSTALLER", "pip\n");
    auto r = run(online({"--app", "comfyui", "--path", app.string(), "--gpu", "RTX 4090", "--driver", "572.16"}), standin::no_driver_env());
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["target"]["platform"], "windows-x86_64");
    EXPECT_TRUE(contains(j["target"]["environment"], "python_embeded")) << r.out;
    const Json* torch = package(j, "torch");
    ASSERT_NE(torch, nullptr) << r.out;
    EXPECT_TRUE(contains((*torch)["filename"], "-cp311-cp311-win_amd64.whl")) << (*torch)["filename"];
    EXPECT_EQ((*torch)["replaces"]["version"], "2.7.0+cu126");
}

TEST_F(PlanCli, CredentialsReachTheIndexButNeverTheOutput) {
    test::ServedIndex idx({"--variants", "cu128", "--torch", "2.11.0", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64"});
    idx.server->set_faults({{"*", {{"auth", "alice:s3cret"}}}});
    std::string root = idx.server->url("/");
    root.insert(root.find("127.0.0.1"), "alice:s3cret@");
    auto python = venv();
    for (bool json : {true, false}) {
        std::vector<std::string> args{"plan", "--python", python.string(), "--pytorch-index", root, "--index-url", pypi_url()};
        if (json) args.push_back("--json");
        auto r = run(args, standin::env("rtx5090-570"));
        ASSERT_EQ(r.code, 0) << r.out << r.err;
        EXPECT_FALSE(contains(r.out, "s3cret")) << r.out;
        EXPECT_FALSE(contains(r.err, "s3cret")) << r.err;
        if (json) {
            auto j = r.json();
            EXPECT_EQ((*package(j, "torch"))["url"].get<std::string>().find('@'), std::string::npos);
            expect_complete_wheels(j);  // sizes by HEAD, with the credentials
        }
    }
}
