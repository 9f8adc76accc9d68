// The whole policy on a table of machines, against the real matrix (profiles/*.yaml): the cases
// today's tools get wrong (peers.md) and the edges of the matrix (torch-matrix.md §D3).
#include <gtest/gtest.h>

#include <algorithm>

#include "envfix/common/strings.hpp"
#include "envfix/matrix/gpu_names.hpp"
#include "envfix/matrix/policy.hpp"
#include "matrix_fixture.hpp"

using namespace envfix;
using namespace envfix::matrix;

namespace {

struct MachineCase {
    const char* name;
    const char* platform;  // "linux-x86_64"
    const char* python;    // "" = unknown
    const char* driver;    // "" = unknown
    std::vector<const char*> gpus;  // names or capabilities
    ChannelChoice channel = ChannelChoice::Auto;
    const char* variant = "";       // --variant
    // Expected: a torch version and variant, or "" and the hint keys that must appear.
    const char* torch;
    const char* chosen;
    std::vector<const char*> keys = {};  // reason/warning/hint keys that must be present
};

void PrintTo(const MachineCase& c, std::ostream* os) { *os << c.name; }

PolicyRequest request_for(const MachineCase& c) {
    const Matrix& m = test::real_matrix();
    PolicyRequest req;
    req.machine.platform = *Platform::parse(c.platform);
    if (*c.python) req.machine.python = normalize_python(c.python);
    if (*c.driver) req.machine.driver = DriverVersion::parse(c.driver);
    for (const char* g : c.gpus) {
        auto match = resolve_gpu(m, g);
        EXPECT_TRUE(match) << c.name << ": " << g;
        if (match) req.machine.gpus.push_back({match->cc, match->name});
    }
    req.channel = c.channel;
    if (*c.variant) req.variant = c.variant;
    return req;
}

std::string dump(const PolicyResult& r) {
    std::string out = r.ok ? "chose " + r.release->torch + " " + r.variant->name + "\n" : "error: " + render(r.error, Lang::En) + "\n";
    for (const auto& m : r.reasons) out += "  reason " + m.key + ": " + render(m, Lang::En) + "\n";
    for (const auto& m : r.warnings) out += "  warning " + m.key + ": " + render(m, Lang::En) + "\n";
    for (const auto& m : r.hints) out += "  hint " + m.key + ": " + render(m, Lang::En) + "\n";
    return out;
}

bool has_key(const PolicyResult& r, const std::string& key) {
    for (const auto* list : {&r.reasons, &r.warnings, &r.hints})
        for (const auto& m : *list)
            if (m.key == key) return true;
    return false;
}

class Machines : public ::testing::TestWithParam<MachineCase> {};

}  // namespace

TEST_P(Machines, ChooseWhatRunsThere) {
    const MachineCase& c = GetParam();
    PolicyResult r = choose(test::real_matrix(), request_for(c));
    if (*c.torch) {
        ASSERT_TRUE(r.ok) << c.name << "\n" << dump(r);
        EXPECT_EQ(r.release->torch, c.torch) << c.name << "\n" << dump(r);
        EXPECT_EQ(r.variant->name, c.chosen) << c.name << "\n" << dump(r);
        EXPECT_EQ(r.code, ExitCode::Ok);
        EXPECT_FALSE(r.reasons.empty());
    } else {
        ASSERT_FALSE(r.ok) << c.name << "\n" << dump(r);
        EXPECT_EQ(r.code, ExitCode::NothingFits) << c.name;
        EXPECT_FALSE(r.hints.empty()) << c.name;
    }
    for (const char* key : c.keys) EXPECT_TRUE(has_key(r, key)) << c.name << " lacks " << key << "\n" << dump(r);
    // Every message renders in both languages without leftover placeholders.
    for (const auto* list : {&r.reasons, &r.warnings, &r.hints})
        for (const auto& m : *list)
            for (Lang lang : {Lang::En, Lang::Zh}) {
                std::string text = render(m, lang);
                EXPECT_EQ(text.find('{'), std::string::npos) << text;
                EXPECT_NE(text, m.key) << "no catalog entry for " << m.key;
            }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Machines,
    ::testing::Values(
        // Blackwell on a 570 driver: cu128, not cu130 (needs 580) nor the index-only cu129.
        MachineCase{"rtx5090_570", "linux-x86_64", "3.12", "570.133.07", {"RTX 5090"}, {}, "", "2.11.0", "cu128",
                    {"plan.runtime.exact", "plan.reason.variant_status"}},
        MachineCase{"rtx5090_580", "linux-x86_64", "3.12", "580.95.05", {"RTX 5090"}, {}, "", "2.14.0", "cu130",
                    {"plan.reason.variant_exact"}},
        MachineCase{"rtx5090_580_ga", "linux-x86_64", "3.12", "580.65.06", {"RTX 5090"}, {}, "", "2.14.0", "cu130",
                    {"plan.warn.minor_compat", "plan.reason.variant_closest_cuda"}},
        MachineCase{"rtx5090_565", "linux-x86_64", "3.12", "565.90", {"RTX 5090"}, {}, "", "", "",
                    {"plan.hint.driver_smallest", "plan.hint.driver"}},
        MachineCase{"rtx5090_windows", "windows-x86_64", "3.12", "572.61", {"RTX 5090"}, {}, "", "2.11.0", "cu128"},
        // Pascal on a 580 driver: cu126, not cu130 (uv#14742).
        MachineCase{"gtx1080ti_580", "linux-x86_64", "3.12", "580.95.05", {"GTX 1080 Ti"}, {}, "", "2.14.0", "cu126",
                    {"plan.cover.same_major"}},
        MachineCase{"gtx1080ti_590", "linux-x86_64", "3.12", "590.44.01", {"GTX 1080 Ti"}, {}, "", "", "",
                    {"plan.hint.driver_legacy"}},
        // The measured machine.
        MachineCase{"h200", "linux-x86_64", "3.12", "580.159.04", {"NVIDIA H200"}, {}, "", "2.14.0", "cu130",
                    {"plan.cover.native", "plan.runtime.exact", "plan.warn.release_unconfirmed"}},
        // Several GPUs: every one must be served.
        MachineCase{"rtx3090_rtx5090_580", "linux-x86_64", "3.12", "580.95.05", {"RTX 3090", "RTX 5090"}, {}, "", "2.14.0", "cu130"},
        MachineCase{"rtx3090_rtx5090_570", "linux-x86_64", "3.12", "570.133.07", {"RTX 3090", "RTX 5090"}, {}, "", "2.11.0", "cu128"},
        MachineCase{"pascal_blackwell", "linux-x86_64", "3.12", "580.95.05", {"GTX 1080 Ti", "RTX 5090"}, {}, "", "", "",
                    {"plan.hint.split_gpus", "plan.hint.other_os"}},
        MachineCase{"pascal_blackwell_windows", "windows-x86_64", "3.12", "572.61", {"GTX 1080 Ti", "RTX 5090"}, {}, "", "2.8.0", "cu128"},
        // Volta: cu126 everywhere, cu128 only 2.8-2.10, never cu130.
        MachineCase{"v100", "linux-x86_64", "3.12", "580.95.05", {"V100"}, {}, "", "2.14.0", "cu126"},
        MachineCase{"v100_cu128", "linux-x86_64", "3.12", "580.95.05", {"V100"}, {}, "cu128", "2.10.0", "cu128", {"plan.reason.forced"}},
        MachineCase{"v100_cu130", "linux-x86_64", "3.12", "580.95.05", {"V100"}, {}, "cu130", "", "", {"plan.hint.other_variant"}},
        // Maxwell: cu126 only, so the release is capped at the last one with cu126.
        MachineCase{"gtx750", "linux-x86_64", "3.12", "580.95.05", {"GTX 750"}, {}, "", "2.14.0", "cu126", {"plan.cover.native"}},
        MachineCase{"gtx750_nightly", "linux-x86_64", "3.12", "580.95.05", {"GTX 750"}, ChannelChoice::Nightly, "", "", "",
                    {"plan.hint.stable"}},
        // Kepler K80: cu118 up to 2.7, under minor-version compatibility on its last driver (R470).
        MachineCase{"k80_470", "linux-x86_64", "3.12", "470.256.02", {"K80"}, {}, "", "2.7.1", "cu118", {"plan.warn.minor_compat"}},
        MachineCase{"k80_py314", "linux-x86_64", "3.14", "470.256.02", {"K80"}, {}, "", "", "", {"plan.hint.python"}},
        MachineCase{"k80_no_driver", "linux-x86_64", "3.12", "", {"Tesla K80"}, {}, "", "2.7.1", "cu118", {"plan.warn.driver_unknown"}},
        // Blackwell variants by family: B300 on sm_100 SASS, GB10 on sm_120 SASS, Thor on sm_110.
        MachineCase{"b300", "linux-x86_64", "3.12", "580.95.05", {"B300"}, {}, "", "2.14.0", "cu130", {"plan.cover.same_major"}},
        MachineCase{"gb10", "linux-aarch64", "3.12", "580.95.05", {"GB10"}, {}, "", "2.14.0", "cu130", {"plan.cover.same_major"}},
        MachineCase{"thor", "linux-aarch64", "3.12", "580.95.05", {"Jetson Thor"}, {}, "", "2.14.0", "cu130", {"plan.cover.native"}},
        MachineCase{"orin", "linux-aarch64", "3.10", "540.4.0", {"Jetson AGX Orin"}, {}, "", "", "", {"plan.hint.jetson"}},
        // Ada on Windows with an R525 driver: below the 12.x Windows floor (528.33) -> cu118.
        MachineCase{"ada_windows_527", "windows-x86_64", "3.12", "527.41", {"RTX 4090"}, {}, "", "2.7.1", "cu118"},
        MachineCase{"ada_windows_528", "windows-x86_64", "3.12", "528.49", {"RTX 4090"}, {}, "", "2.14.0", "cu126", {"plan.warn.minor_compat"}},
        // No GPU: the CPU build.
        MachineCase{"cpu_only", "linux-x86_64", "3.12", "", {}, {}, "", "2.14.0", "cpu", {"plan.reason.no_gpu"}},
        MachineCase{"cpu_only_py38_windows", "windows-x86_64", "3.8", "", {}, {}, "", "2.4.1", "cpu"},
        MachineCase{"cpu_only_mac_intel", "macos-x86_64", "3.11", "", {}, {}, "", "2.2.2", "cpu"},
        // Python decides the releases.
        MachineCase{"py38", "linux-x86_64", "3.8", "580.95.05", {"RTX 4090"}, {}, "", "2.4.1", "cu124", {"plan.reason.variant_newest_cuda"}},
        MachineCase{"py314", "linux-x86_64", "3.14", "580.95.05", {"RTX 4090"}, {}, "", "2.14.0", "cu130"},
        MachineCase{"py313t_windows", "windows-x86_64", "3.13t", "580.95.05", {"RTX 4090"}, {}, "", "", "", {"plan.hint.other_os"}},
        // Windows cu128 carried Pascal in 2.7/2.8; Linux cu128 never did.
        MachineCase{"pascal_cu128_windows", "windows-x86_64", "3.12", "572.61", {"GTX 1080 Ti"}, {}, "cu128", "2.8.0", "cu128"},
        MachineCase{"pascal_cu128_linux", "linux-x86_64", "3.12", "572.61", {"GTX 1080 Ti"}, {}, "cu128", "", "",
                    {"plan.hint.other_variant", "plan.hint.other_os"}},
        // No driver known (planning for another machine): PyPI's default variant, with a warning.
        MachineCase{"rtx4090_no_driver", "linux-x86_64", "3.12", "", {"RTX 4090"}, {}, "", "2.14.0", "cu130",
                    {"plan.warn.driver_unknown", "plan.reason.variant_default"}},
        // A future GPU (13.0) on a future driver: only 2.13.0's accidental compute_120 PTX serves it.
        MachineCase{"future_gpu", "linux-x86_64", "3.12", "600.10", {"13.0"}, {}, "", "2.13.0", "cu130", {"plan.warn.jit", "plan.cover.jit"}},
        MachineCase{"mac_with_nvidia", "macos-arm64", "3.12", "", {"RTX 4090"}, {}, "", "", "", {"plan.hint.cpu"}}),
    [](const ::testing::TestParamInfo<MachineCase>& info) { return std::string(info.param.name); });

TEST(Policy, ExplainsTheAlternatives) {
    MachineCase c{"x", "linux-x86_64", "3.12", "570.133.07", {"RTX 5090"}, {}, "", "2.11.0", "cu128"};
    PolicyResult r = choose(test::real_matrix(), request_for(c));
    ASSERT_TRUE(r.ok);
    auto find = [&](const char* torch, const char* variant) -> const Alternative* {
        for (const auto& a : r.alternatives)
            if (a.torch == torch && a.variant == variant) return &a;
        return nullptr;
    };
    const Alternative* cu130 = find("2.14.0", "cu130");
    ASSERT_TRUE(cu130);
    EXPECT_FALSE(cu130->fits);
    ASSERT_FALSE(cu130->why.empty());
    EXPECT_EQ(render(cu130->why.front(), Lang::En),
              "driver 570.133.07 cannot run CUDA 13.0.2: it needs 580.95.05 or newer (580 with minor-version compatibility)");
    const Alternative* cu126 = find("2.14.0", "cu126");
    ASSERT_TRUE(cu126);
    EXPECT_EQ(render(cu126->why.front(), Lang::En),
              "GeForce RTX 5090 (sm_120): no kernels; the newest SASS is sm_90 and there is no PTX");
    const Alternative* cu129 = find("2.11.0", "cu129");
    ASSERT_TRUE(cu129);
    EXPECT_TRUE(cu129->fits);
    EXPECT_EQ(cu129->why.front().key, "plan.alt.status");
    EXPECT_FALSE(find("2.11.0", "cpu"));  // CPU builds are no alternative on a GPU machine
    EXPECT_TRUE(find("2.16.0.dev", "cu130"));  // the nightly line is shown too
    EXPECT_EQ(r.driver_needed->to_string(), "570.26");
    EXPECT_EQ(r.runtime_fit, RuntimeFit::Exact);
}
