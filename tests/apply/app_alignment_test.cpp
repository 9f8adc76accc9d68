// An app against a plan, before anything changes: the plan's versions feed the app's constraint
// check; companions the app needs that the plan does not bring, and conflicts, block the change.
#include <gtest/gtest.h>

#include <algorithm>

#include "app_data.hpp"
#include "envfix/apps/app_profiles.hpp"
#include "envfix/installer/app_alignment.hpp"
#include "envfix/matrix/matrix_loader.hpp"

using namespace envfix;

namespace {

using test::app_data::builtin_matrix;
using test::app_data::catalog;
using test::app_data::dist;

plan::Plan make_plan(std::vector<std::pair<std::string, std::string>> install, std::vector<std::pair<std::string, std::string>> keep = {}) {
    plan::Plan p;
    p.torch = "2.8.0+cu128";
    for (const auto& [n, v] : install) {
        plan::PlannedWheel w;
        w.name = w.canonical_name = n;
        w.version = v;
        p.install.push_back(w);
    }
    for (const auto& [n, v] : keep) p.keep.push_back({n, n, v, {}});
    return p;
}

apps::AppCheckInput input(const standards::InstalledSet& set) {
    apps::AppCheckInput in;
    in.profile = catalog().find("comfyui");
    in.installed = &set;
    in.matrix = &builtin_matrix();
    in.markers.python_version = "3.11";
    in.markers.python_full_version = "3.11.2";
    in.markers.sys_platform = "linux";
    in.markers.platform_system = "Linux";
    in.markers.platform_machine = "x86_64";
    return in;
}

}  // namespace

TEST(AppAlignment, PlanPackagesAreWhatItInstallsAndKeepsTorchFirst) {
    auto p = make_plan({{"filelock", "3.18.0"}, {"torch", "2.8.0+cu128"}}, {{"numpy", "2.1.0"}});
    auto pkgs = installer::plan_packages(p);
    ASSERT_EQ(pkgs.size(), 3u);
    EXPECT_EQ(pkgs[0].name, "torch");
    EXPECT_EQ(pkgs[2].name, "numpy");
}

TEST(AppAlignment, APlanWithTheCompanionsGoesAhead) {
    standards::InstalledSet set{{dist("torch", "2.1.2+cu121"), dist("torchaudio", "2.1.2+cu121", {"torch==2.1.2"}),
                                 dist("torchvision", "0.16.2+cu121", {"torch==2.1.2"})}};
    auto a = installer::align_app(make_plan({{"torch", "2.8.0+cu128"}, {"torchvision", "0.23.0+cu128"}, {"torchaudio", "2.8.0+cu128"}}),
                                  input(set));
    EXPECT_FALSE(a.blocked()) << (a.reasons().empty() ? "" : render(a.reasons()[0], Lang::En));
    EXPECT_TRUE(a.not_in_plan.empty());
}

TEST(AppAlignment, ACompanionThePlanDoesNotBringBlocksTheChange) {
    standards::InstalledSet set{{dist("torch", "2.1.2+cu121"), dist("torchvision", "0.16.2+cu121", {"torch==2.1.2"})}};
    auto a = installer::align_app(make_plan({{"torch", "2.8.0+cu128"}}), input(set));
    EXPECT_TRUE(a.blocked());
    ASSERT_EQ(a.not_in_plan.size(), 2u);  // torchvision to change, torchaudio (ComfyUI needs it) missing
    EXPECT_EQ(a.not_in_plan[0].package, "torchvision");
    auto reasons = a.reasons();
    ASSERT_EQ(reasons.size(), 2u);
    EXPECT_EQ(render(reasons[0], Lang::En),
              "torchvision must be 0.23.0+cu128 for the app (installed: 0.16.2+cu121), and the plan does not bring it");
}

TEST(AppAlignment, TheAppsTorchRangeIsAConflict) {
    standards::InstalledSet set{{dist("torch", "2.8.0+cu128")}};
    auto p = make_plan({{"torch", "2.6.0+cu126"}, {"torchvision", "0.21.0+cu126"}, {"torchaudio", "2.6.0+cu126"}});
    auto a = installer::align_app(p, input(set));
    EXPECT_TRUE(a.constraints.has_conflicts());
    EXPECT_TRUE(a.blocked());
    ASSERT_FALSE(a.reasons().empty());
    EXPECT_NE(render(a.reasons()[0], Lang::En).find(">=2.7"), std::string::npos) << render(a.reasons()[0], Lang::En);
}

TEST(AppAlignment, ANeededVersionWithoutLocalLabelIsMetByAnyVariant) {
    apps::AppConstraints c;
    c.companions.push_back({"torchvision", "0.16.2", "0.23.0", "", true});
    auto a = installer::align_app(make_plan({{"torchvision", "0.23.0+cu128"}}), c);
    EXPECT_FALSE(a.blocked());
    c.companions[0].needed = "0.23.0+cu126";
    EXPECT_TRUE(installer::align_app(make_plan({{"torchvision", "0.23.0+cu128"}}), c).blocked());
}
