// The dependency resolver (resolve.hpp) on projects given as data: what it picks, how it
// backtracks, what it keeps, and how it says it cannot. The planner's provider (index and
// environment) is exercised end to end in plan_cli_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "envfix/plan/resolve.hpp"
#include "envfix/standards/names.hpp"

using namespace envfix;
using namespace envfix::standards;
using namespace envfix::plan;

namespace {

struct Pkg {
    std::string name;
    std::string version;
    std::vector<std::string> deps;
    bool yanked = false;
};

// Projects as a table: the candidates of a name newest first, the installed one first.
class TableProvider final : public ResolveProvider {
public:
    TableProvider(std::vector<Pkg> pkgs, std::map<std::string, std::string> installed = {})
        : pkgs_(std::move(pkgs)), installed_(std::move(installed)) {}

    Expected<std::vector<ResolveCandidate>> candidates(const std::string& name) override {
        ++candidate_calls;
        std::vector<ResolveCandidate> out;
        for (size_t i = 0; i < pkgs_.size(); ++i)
            if (canonicalize_name(pkgs_[i].name) == name)
                out.push_back({name, Version::parse(pkgs_[i].version).value(), false, pkgs_[i].yanked, i});
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.version > b.version; });
        if (auto it = installed_.find(name); it != installed_.end())
            out.insert(out.begin(), {name, Version::parse(it->second).value(), true, false, 1000000});
        return out;
    }
    Expected<std::vector<Requirement>> dependencies(const ResolveCandidate& c) override {
        ++dependency_calls;
        std::vector<Requirement> out;
        if (c.installed) return out;
        for (const auto& d : pkgs_[c.id].deps) out.push_back(Requirement::parse(d).value());
        return out;
    }
    bool allows_prereleases(const std::string& name) const override { return name == nightly; }

    std::string nightly;
    int candidate_calls = 0;
    int dependency_calls = 0;

private:
    std::vector<Pkg> pkgs_;
    std::map<std::string, std::string> installed_;
};

std::vector<RootRequirement> roots(std::initializer_list<const char*> texts, std::initializer_list<const char*> optional = {}) {
    std::vector<RootRequirement> out;
    for (const char* t : texts) out.push_back({Requirement::parse(t).value(), false});
    for (const char* t : optional) out.push_back({Requirement::parse(t).value(), true});
    return out;
}

ResolveOptions linux311() {
    ResolveOptions o;
    o.env.python_version = "3.11";
    o.env.python_full_version = "3.11.2";
    o.env.os_name = "posix";
    o.env.sys_platform = "linux";
    o.env.platform_system = "Linux";
    o.env.platform_machine = "x86_64";
    o.env.platform_python_implementation = "CPython";
    o.env.implementation_name = "cpython";
    o.env.implementation_version = "3.11.2";
    return o;
}

std::map<std::string, std::string> picked(const Resolution& r) {
    std::map<std::string, std::string> out;
    for (const auto& p : r.packages) out[p.candidate.name] = p.candidate.version.to_string() + (p.candidate.installed ? "*" : "");
    return out;
}

std::string error_text(const Error& e) { return render(e.message, Lang::En); }

}  // namespace

TEST(PlanResolve, NewestThatFitsWithMarkers) {
    TableProvider p({
        {"torch", "2.11.0+cu128", {"filelock", "typing-extensions>=4.10.0", "nvidia-cudnn-cu12==9.7.1.26; platform_system == \"Linux\"",
                                   "pywin32; sys_platform == \"win32\"", "optree>=0.13.0; extra == \"optree\""}},
        {"filelock", "3.16.1", {}},
        {"filelock", "3.18.0", {}},
        {"typing-extensions", "4.9.0", {}},
        {"typing-extensions", "4.12.2", {}},
        {"nvidia-cudnn-cu12", "9.7.1.26", {"nvidia-cublas-cu12"}},
        {"nvidia-cublas-cu12", "12.8.3.14", {}},
    });
    auto r = resolve(roots({"torch==2.11.0+cu128"}), p, linux311());
    ASSERT_TRUE(r) << error_text(r.error());
    auto got = picked(*r);
    EXPECT_EQ(got, (std::map<std::string, std::string>{{"torch", "2.11.0+cu128"},
                                                       {"filelock", "3.18.0"},
                                                       {"typing-extensions", "4.12.2"},
                                                       {"nvidia-cudnn-cu12", "9.7.1.26"},
                                                       {"nvidia-cublas-cu12", "12.8.3.14"}}));
    EXPECT_EQ(r->packages.front().candidate.name, "torch");  // decision order: roots first
    EXPECT_EQ(r->backjumps, 0u);
    const auto& cudnn = *std::find_if(r->packages.begin(), r->packages.end(), [](auto& x) { return x.candidate.name == "nvidia-cudnn-cu12"; });
    EXPECT_EQ(cudnn.required_by, std::vector<std::string>{"torch 2.11.0+cu128"});
}

TEST(PlanResolve, BacktracksToTheDecisionThatConflicts) {
    // B 2.0 wants D>=2, C 2.0 wants D<1: D has no version for both; C is the latest culprit.
    TableProvider p({
        {"a", "2.0", {"b>=1", "c"}},
        {"b", "2.0", {"d>=2"}},
        {"b", "1.0", {"d>=2"}},
        {"c", "2.0", {"d<1"}},
        {"c", "1.0", {}},
        {"d", "2.0", {}},
        {"d", "0.5", {}},
    });
    auto r = resolve(roots({"a"}), p, linux311());
    ASSERT_TRUE(r) << error_text(r.error());
    EXPECT_EQ(picked(*r), (std::map<std::string, std::string>{{"a", "2.0"}, {"b", "2.0"}, {"c", "1.0"}, {"d", "2.0"}}));
    EXPECT_GE(r->backjumps, 1u);
}

TEST(PlanResolve, JumpsOverDecisionsThatPlayNoPart) {
    // x's newest needs w<1 while z needs w>=1; the ten versions of y in between are never retried.
    std::vector<Pkg> pkgs = {{"x", "2.0", {"w<1"}}, {"x", "1.0", {"w>=1"}}, {"z", "1.0", {"w>=1"}}, {"w", "1.5", {}}, {"w", "0.5", {}}};
    for (int i = 0; i < 10; ++i) pkgs.push_back({"y", "1." + std::to_string(i), {}});
    TableProvider p(pkgs);
    auto r = resolve(roots({"x", "y", "z"}), p, linux311());
    ASSERT_TRUE(r) << error_text(r.error());
    EXPECT_EQ(picked(*r), (std::map<std::string, std::string>{{"x", "1.0"}, {"y", "1.9"}, {"z", "1.0"}, {"w", "1.5"}}));
    // x 2.0, y 1.9, z, (w fails), x 1.0, y 1.9, z, w: no other y tried.
    EXPECT_LE(r->steps, 8u);
}

TEST(PlanResolve, ConflictWithAChosenVersionTriesTheNextCandidate) {
    TableProvider p({
        {"torch", "2.11.0", {"filelock", "networkx"}},
        {"filelock", "3.16.1", {}},
        {"networkx", "3.5", {"filelock<3.10"}},  // newest networkx cannot live with the filelock chosen
        {"networkx", "3.4.2", {}},
    });
    auto r = resolve(roots({"torch"}), p, linux311());
    ASSERT_TRUE(r) << error_text(r.error());
    EXPECT_EQ(picked(*r)["networkx"], "3.4.2");
}

TEST(PlanResolve, KeepsWhatIsInstalledWhenItSatisfies) {
    TableProvider p({{"torch", "2.11.0", {"filelock>=3.10", "sympy>=1.13.3"}},
                     {"filelock", "3.18.0", {}},
                     {"sympy", "1.14.0", {}},
                     {"sympy", "1.13.3", {}}},
                    {{"filelock", "3.16.1"}, {"sympy", "1.12"}});
    auto r = resolve(roots({"torch"}), p, linux311());
    ASSERT_TRUE(r) << error_text(r.error());
    auto got = picked(*r);
    EXPECT_EQ(got["filelock"], "3.16.1*");  // satisfies: stays
    EXPECT_EQ(got["sympy"], "1.14.0");      // too old: the newest replaces it
}

TEST(PlanResolve, ExtrasAskedLaterAddTheirRequirements) {
    TableProvider p({
        {"torch", "2.11.0", {"cuda-toolkit==13.0.2", "helper"}},
        {"helper", "1.0", {"cuda-toolkit[cublas]"}},
        {"cuda-toolkit", "13.0.2", {"nvidia-cublas==13.*; extra == \"cublas\"", "nvidia-nvtx==13.*; extra == \"nvtx\""}},
        {"nvidia-cublas", "13.1.0.3", {}},
        {"nvidia-nvtx", "13.0.85", {}},
    });
    auto r = resolve(roots({"torch"}), p, linux311());
    ASSERT_TRUE(r) << error_text(r.error());
    auto got = picked(*r);
    EXPECT_EQ(got.count("nvidia-cublas"), 1u);
    EXPECT_EQ(got.count("nvidia-nvtx"), 0u);
    auto tk = std::find_if(r->packages.begin(), r->packages.end(), [](auto& x) { return x.candidate.name == "cuda-toolkit"; });
    EXPECT_EQ(tk->extras, std::vector<std::string>{"cublas"});
}

TEST(PlanResolve, PreReleasesAndYankedFiles) {
    TableProvider p({{"torch", "2.12.0.dev20260301+cu130", {"pytorch-triton==3.7.0+git3b1f5a0e"}},
                     {"torch", "2.11.0", {}},
                     {"pytorch-triton", "3.7.0+git3b1f5a0e", {}},
                     {"lib", "2.0", {}, true},
                     {"lib", "1.9", {}},
                     {"lib", "2.1rc1", {}}});
    auto r = resolve(roots({"torch", "lib"}), p, linux311());
    ASSERT_TRUE(r);
    EXPECT_EQ(picked(*r)["torch"], "2.11.0");  // no pre-release unless allowed
    EXPECT_EQ(picked(*r)["lib"], "1.9");       // yanked 2.0 skipped, rc skipped
    p.nightly = "torch";
    auto n = resolve(roots({"torch", "lib==2.0"}), p, linux311());
    ASSERT_TRUE(n);
    EXPECT_EQ(picked(*n)["torch"], "2.12.0.dev20260301+cu130");
    EXPECT_EQ(picked(*n)["lib"], "2.0");  // yanked, but pinned exactly (PEP 592)
    auto only_pre = resolve(roots({"lib>=2.1.dev0"}), p, linux311());
    ASSERT_TRUE(only_pre);
    EXPECT_EQ(picked(*only_pre)["lib"], "2.1rc1");
}

TEST(PlanResolve, OptionalRootsThatCannotBeHadAreDropped) {
    TableProvider p({{"torch", "2.11.0", {}}, {"torchvision", "0.25.0", {"torch==2.10.0"}}});
    auto r = resolve(roots({"torch==2.11.0"}, {"torchvision", "xformers"}), p, linux311());
    ASSERT_TRUE(r) << error_text(r.error());
    EXPECT_EQ(picked(*r), (std::map<std::string, std::string>{{"torch", "2.11.0"}}));
    ASSERT_EQ(r->dropped.size(), 2u);
    std::vector<std::string> names{r->dropped[0].name, r->dropped[1].name};
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"torchvision", "xformers"}));
}

TEST(PlanResolve, SaysWhyItCannot) {
    TableProvider p({{"torch", "2.11.0", {"filelock>=99"}}, {"filelock", "3.16.1", {}}});
    auto r = resolve(roots({"torch"}), p, linux311());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::DependencyConflict);
    auto text = error_text(r.error());
    EXPECT_NE(text.find("no version of filelock satisfies filelock>=99 (torch 2.11.0)"), std::string::npos) << text;
    EXPECT_NE(text.find("3.16.1"), std::string::npos) << text;

    TableProvider missing({{"torch", "2.11.0", {"nvidia-nccl-cu13"}}});
    auto m = resolve(roots({"torch"}), missing, linux311());
    ASSERT_FALSE(m);
    EXPECT_NE(error_text(m.error()).find("nvidia-nccl-cu13 is on none of the indexes"), std::string::npos) << error_text(m.error());
}

TEST(PlanResolve, BoundedAndDeterministic) {
    // Every b conflicts with every c: without a bound this search is long; with it, it stops.
    std::vector<Pkg> pkgs = {{"a", "1.0", {"b", "c"}}};
    for (int i = 0; i < 30; ++i) {
        pkgs.push_back({"b", "1." + std::to_string(i), {"d==1." + std::to_string(i)}});
        pkgs.push_back({"c", "1." + std::to_string(i), {"d==2." + std::to_string(i)}});
    }
    TableProvider p(pkgs);
    auto o = linux311();
    o.max_steps = 50;
    auto r = resolve(roots({"a"}), p, o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::DependencyConflict);

    TableProvider q({{"a", "1.0", {"b", "c"}}, {"b", "1.0", {}}, {"b", "2.0", {}}, {"c", "1.0", {"b<2"}}});
    auto first = resolve(roots({"a"}), q, linux311());
    auto second = resolve(roots({"a"}), q, linux311());
    ASSERT_TRUE(first && second);
    EXPECT_EQ(picked(*first), picked(*second));
    EXPECT_EQ(picked(*first)["b"], "1.0");
}
