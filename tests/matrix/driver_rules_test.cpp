// The driver rules on their own: GPU support per branch, exact minimum, minor-version floor.
#include <gtest/gtest.h>

#include "envfix/matrix/driver_rules.hpp"
#include "matrix_fixture.hpp"

using namespace envfix;
using namespace envfix::matrix;

namespace {

const Variant& variant(const char* torch, const char* name) {
    for (const auto& r : test::real_matrix().releases)
        if (r.torch == torch)
            if (const Variant* v = r.variant(name)) return *v;
    ADD_FAILURE() << torch << " " << name;
    static Variant none;
    return none;
}

std::optional<DriverVersion> drv(const char* s) { return DriverVersion::parse(s); }

}  // namespace

TEST(DriverRules, ExactMinimumThenFloorThenTooOld) {
    const Matrix& m = test::real_matrix();
    struct Case { const char* torch; const char* var; OsKind os; const char* driver; RuntimeFit fit; };
    for (auto c : {
             Case{"2.11.0", "cu128", OsKind::Linux, "570.133.07", RuntimeFit::Exact},        // 12.8.0 needs 570.26
             Case{"2.11.0", "cu129", OsKind::Linux, "570.133.07", RuntimeFit::MinorCompat},  // 12.9.1 needs 575.57.08
             Case{"2.11.0", "cu130", OsKind::Linux, "570.133.07", RuntimeFit::TooOld},       // 13.x floor 580
             Case{"2.11.0", "cu130", OsKind::Linux, "580.95.05", RuntimeFit::Exact},
             Case{"2.11.0", "cu130", OsKind::Linux, "580.65.06", RuntimeFit::MinorCompat},   // 13.0.2 needs 580.95.05
             Case{"2.14.0", "cu132", OsKind::Linux, "580.159.04", RuntimeFit::MinorCompat},
             Case{"2.14.0", "cu126", OsKind::Linux, "525.60.13", RuntimeFit::MinorCompat},
             Case{"2.14.0", "cu126", OsKind::Linux, "525.60.12", RuntimeFit::TooOld},
             Case{"2.14.0", "cu126", OsKind::Windows, "528.33", RuntimeFit::MinorCompat},
             Case{"2.14.0", "cu126", OsKind::Windows, "527.41", RuntimeFit::TooOld},         // Windows floor 528.33
             Case{"2.7.1", "cu118", OsKind::Linux, "470.256.02", RuntimeFit::MinorCompat},   // 11.x floor 450.80.02
             Case{"2.7.1", "cu118", OsKind::Windows, "527.41", RuntimeFit::Exact},           // 11.8 needs 520.06
             Case{"2.14.0", "cu130", OsKind::Windows, "581.57", RuntimeFit::Exact},
         }) {
        auto v = check_runtime(m, variant(c.torch, c.var), c.os, drv(c.driver));
        EXPECT_EQ(v.fit, c.fit) << c.torch << " " << c.var << " " << c.driver << ": " << render(v.reason, Lang::En);
    }
    EXPECT_EQ(check_runtime(m, variant("2.14.0", "cu130"), OsKind::Linux, std::nullopt).fit, RuntimeFit::Unknown);
    EXPECT_EQ(check_runtime(m, variant("2.14.0", "cpu"), OsKind::Linux, drv("400.0")).fit, RuntimeFit::NotNeeded);
}

TEST(DriverRules, UnknownUpdatesAndWindowsFiguresAreConservative) {
    const Matrix& m = test::real_matrix();
    auto need = runtime_need(m, variant("2.10.0", "cu130"), OsKind::Linux);  // "13.0": update unknown
    ASSERT_TRUE(need);
    EXPECT_EQ(need->exact.to_string(), "580.95.05");
    EXPECT_FALSE(need->update_known);
    need = runtime_need(m, variant("2.11.0", "cu130"), OsKind::Linux);
    EXPECT_EQ(need->exact.to_string(), "580.95.05");
    EXPECT_TRUE(need->update_known);
    EXPECT_TRUE(need->figure_confirmed);
    EXPECT_EQ(need->floor->to_string(), "580");
    need = runtime_need(m, variant("2.11.0", "cu130"), OsKind::Windows);
    EXPECT_EQ(need->exact.to_string(), "580");
    EXPECT_FALSE(need->figure_confirmed);
    need = runtime_need(m, variant("2.7.1", "cu118"), OsKind::Linux);  // "11.8" has one update only
    EXPECT_TRUE(need->update_known);
    EXPECT_EQ(need->exact.to_string(), "520.61.05");
    EXPECT_FALSE(runtime_need(m, variant("2.11.0", "cpu"), OsKind::Linux));
}

TEST(DriverRules, TheGpuItselfNeedsItsBranch) {
    const Matrix& m = test::real_matrix();
    auto cc = [](const char* s) { return *ComputeCapability::parse(s); };
    EXPECT_EQ(check_gpu_driver(m, cc("12.0"), drv("565.77"), "RTX 5090").fit, GpuDriverFit::TooOld);
    EXPECT_EQ(check_gpu_driver(m, cc("12.0"), drv("570.86.16"), "RTX 5090").fit, GpuDriverFit::Ok);
    EXPECT_EQ(check_gpu_driver(m, cc("12.0"), drv("572.16"), "RTX 5090").fit, GpuDriverFit::Ok);  // Windows R570
    EXPECT_EQ(check_gpu_driver(m, cc("6.1"), drv("580.95.05"), "GTX 1080 Ti").fit, GpuDriverFit::Ok);
    EXPECT_EQ(check_gpu_driver(m, cc("6.1"), drv("582.28"), "GTX 1080 Ti").fit, GpuDriverFit::Ok);  // Windows R580
    auto legacy = check_gpu_driver(m, cc("6.1"), drv("590.44.01"), "GTX 1080 Ti");
    EXPECT_EQ(legacy.fit, GpuDriverFit::TooNew);
    EXPECT_EQ(render(legacy.reason, Lang::En),
              "driver 590.44.01 no longer supports Pascal GPUs like GTX 1080 Ti: branch 580 is the last that does");
    EXPECT_EQ(check_gpu_driver(m, cc("3.7"), drv("474.44"), "K80").fit, GpuDriverFit::Ok);  // Windows R470
    EXPECT_EQ(check_gpu_driver(m, cc("3.7"), drv("525.60.13"), "K80").fit, GpuDriverFit::TooNew);
    EXPECT_EQ(check_gpu_driver(m, cc("12.0"), std::nullopt, "RTX 5090").fit, GpuDriverFit::Unknown);
    auto old = check_gpu_driver(m, cc("8.9"), drv("515.65.01"), "RTX 4090");
    EXPECT_EQ(render(old.reason, Lang::En),
              "driver 515.65.01 is too old for Ada Lovelace GPUs like RTX 4090: they need driver branch 520 or newer");
}

TEST(DriverRules, DriverNeededCombinesToolkitAndGpus) {
    const Matrix& m = test::real_matrix();
    auto cc = [](const char* s) { return *ComputeCapability::parse(s); };
    EXPECT_EQ(driver_needed(m, variant("2.11.0", "cu128"), OsKind::Linux, {cc("12.0")})->to_string(), "570.26");
    EXPECT_EQ(driver_needed(m, variant("2.9.1", "cu126"), OsKind::Linux, {cc("8.6")})->to_string(), "560.35.05");
    // CUDA 11.8's minimum (520.61.05) is below what Blackwell needs (570).
    EXPECT_EQ(driver_needed(m, variant("2.7.1", "cu118"), OsKind::Linux, {cc("12.0")})->to_string(), "570");
    EXPECT_FALSE(driver_needed(m, variant("2.7.1", "cpu"), OsKind::Linux, {cc("12.0")}));
}
