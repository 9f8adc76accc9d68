// The policy rule by rule, on a small made-up releases.yaml (the real cuda.yaml and GPU tables),
// so each rule is seen deciding alone.
#include <gtest/gtest.h>

#include "envfix/matrix/policy.hpp"
#include "matrix_fixture.hpp"

using namespace envfix;
using namespace envfix::matrix;

namespace {

// 1.0: cu126 (sm_80, sm_90) and cu128 (+ sm_120), 1.1: cu128 with sm_120 as PTX only, cu129
// extra with sm_120 SASS; 1.2: cu130 official and cu126; nightly: cu130 with sm_120 SASS.
const char* kReleases = R"(schema_version: 1
releases:
  - line: "1.0"
    channel: stable
    released: "2030-01"
    python: ["3.11", "3.12"]
    pypi_default: cu126
    versions: [{torch: "1.0.0"}]
    variants:
      - {name: cu126, cuda: "12.6.3", platforms: {linux-x86_64: {archs: "8.0;9.0"}}}
      - {name: cu128, cuda: "12.8.0", platforms: {linux-x86_64: {archs: "8.0;9.0;12.0"}}}
      - {name: cpu, platforms: {linux-x86_64: {}}}
  - line: "1.1"
    channel: stable
    released: "2030-02"
    python: ["3.12"]
    pypi_default: cu128
    versions: [{torch: "1.1.0"}]
    variants:
      - {name: cu128, cuda: "12.8.0", platforms: {linux-x86_64: {archs: "8.0;9.0+PTX"}}}
      - {name: cu129, cuda: "12.9.1", status: extra, platforms: {linux-x86_64: {archs: "8.0;9.0;12.0"}}}
      - {name: cpu, platforms: {linux-x86_64: {}}}
  - line: "1.2"
    channel: stable
    released: "2030-03"
    python: ["3.12", "3.13"]
    pypi_default: cu130
    versions: [{torch: "1.2.0"}]
    variants:
      - {name: cu126, cuda: "12.6.3", platforms: {linux-x86_64: {archs: "8.0;9.0"}}}
      - {name: cu130, cuda: "13.0.2", platforms: {linux-x86_64: {archs: "8.0;9.0"}}}
      - {name: cpu, platforms: {linux-x86_64: {}}}
  - line: "nightly"
    channel: nightly
    released: "rolling"
    python: ["3.12", "3.13"]
    versions: [{torch: "1.3.0.dev"}]
    variants:
      - {name: cu130, cuda: "13.0", platforms: {linux-x86_64: {archs: "8.0;9.0;12.0"}}}
)";

const Matrix& small() {
    static const Matrix m = [] {
        auto texts = test::real_profile_texts();
        for (auto& t : texts)
            if (t.name == "matrix/releases.yaml") t.text = kReleases;
        auto r = parse_profiles(texts);
        if (!r) ADD_FAILURE() << render(r.error().message, Lang::En);
        return r ? *r : Matrix{};
    }();
    return m;
}

PolicyRequest machine(const char* driver, std::initializer_list<const char*> gpus, const char* python = "3.12") {
    PolicyRequest req;
    req.machine.platform = {OsKind::Linux, CpuKind::X86_64};
    if (*driver) req.machine.driver = DriverVersion::parse(driver);
    if (*python) req.machine.python = python;
    for (const char* g : gpus) req.machine.gpus.push_back({*ComputeCapability::parse(g), ""});
    return req;
}

std::string chosen(const PolicyResult& r) {
    return r.ok ? r.release->torch + " " + r.variant->name : "none: " + render(r.error, Lang::En);
}

bool has(const std::vector<Message>& ms, const std::string& key) {
    for (const auto& m : ms)
        if (m.key == key) return true;
    return false;
}

}  // namespace

TEST(PolicyRules, NewestReleaseThenBestVariantWithinIt) {
    // sm_90 on a 580.95.05 driver: 1.2 is the newest; cu130 (exact, newest CUDA) before cu126.
    auto r = choose(small(), machine("580.95.05", {"9.0"}));
    EXPECT_EQ(chosen(r), "1.2.0 cu130");
    EXPECT_TRUE(has(r.reasons, "plan.reason.newest_stable"));
    EXPECT_TRUE(has(r.reasons, "plan.reason.variant_newest_cuda"));
}

TEST(PolicyRules, ExactDriverMinimumBeforeTheFloor) {
    // 570.x: cu130 is too old (13.x floor 580), cu126 meets its exact minimum.
    EXPECT_EQ(chosen(choose(small(), machine("570.133.07", {"9.0"}))), "1.2.0 cu126");
    // 580.65.06: cu130 (13.0.2 needs 580.95.05) only under the floor; cu126 exact wins.
    auto r = choose(small(), machine("580.65.06", {"9.0"}));
    EXPECT_EQ(chosen(r), "1.2.0 cu126");
    EXPECT_TRUE(has(r.reasons, "plan.reason.variant_exact"));
}

TEST(PolicyRules, UnderTheFloorTheClosestCuda) {
    // 525.60.13: the 12.x floor only. In 1.0 both cu126 and cu128 are floor-only: cu126 is closer.
    PolicyRequest req = machine("525.60.13", {"9.0"}, "3.11");
    auto r = choose(small(), req);
    EXPECT_EQ(chosen(r), "1.0.0 cu126");
    EXPECT_TRUE(has(r.reasons, "plan.reason.variant_closest_cuda"));
    EXPECT_TRUE(has(r.warnings, "plan.warn.minor_compat"));
}

TEST(PolicyRules, NativeCodeBeforePtxJitAndOfficialBeforeExtra) {
    // sm_120 on 575.57.08: 1.2 has nothing; 1.1 has cu128 with only compute_90 PTX (JIT) and cu129
    // (extra) with sm_120 SASS; 1.0 has official cu128 with sm_120 SASS -> 1.0.0 cu128.
    auto r = choose(small(), machine("575.57.08", {"12.0"}));
    EXPECT_EQ(chosen(r), "1.0.0 cu128");
    bool saw_extra = false;
    for (const auto& a : r.alternatives)
        if (a.torch == "1.1.0" && a.variant == "cu129") {
            saw_extra = true;
            EXPECT_TRUE(a.fits);
            EXPECT_EQ(a.why.front().key, "plan.alt.status");
        }
    EXPECT_TRUE(saw_extra);
    // Without 1.0 (filtered out), the extra variant's native code beats PTX JIT.
    PolicyRequest req = machine("575.57.08", {"12.0"});
    req.release_filter = [](const Release& rel) { return rel.torch != "1.0.0"; };
    req.release_filter_text = "!=1.0.0";
    r = choose(small(), req);
    EXPECT_EQ(chosen(r), "1.1.0 cu129");
    EXPECT_TRUE(has(r.reasons, "plan.reason.variant_native"));
    EXPECT_TRUE(has(r.reasons, "plan.reason.filter"));
}

TEST(PolicyRules, PtxJitWhenNothingNativeAndNotUnderTheFloor) {
    PolicyRequest req = machine("575.57.08", {"12.0"});
    req.release_filter = [](const Release& rel) { return rel.torch == "1.1.0"; };
    req.variant = "cu128";
    auto r = choose(small(), req);
    EXPECT_EQ(chosen(r), "1.1.0 cu128");
    EXPECT_TRUE(has(r.warnings, "plan.warn.jit"));
    // A 12.x driver below 12.8 runs cu128 only under the floor, where PTX cannot be JIT-compiled
    // (a GPU newer than any table entry, so no driver branch gate applies).
    req.machine.driver = DriverVersion::parse("560.35.05");
    req.machine.gpus = {{*ComputeCapability::parse("13.0"), ""}};
    r = choose(small(), req);
    EXPECT_FALSE(r.ok);
    ASSERT_FALSE(r.alternatives.empty());
    EXPECT_EQ(r.alternatives.front().why.front().key, "plan.cover.jit_blocked_compat");
}

TEST(PolicyRules, StableBeforeNightlyUnlessAsked) {
    // sm_120 with 580.95.05 and Python 3.13: no stable release offers both (1.0: no 3.13; 1.2: no
    // sm_120), the nightly does.
    PolicyRequest req = machine("580.95.05", {"12.0"}, "3.13");
    auto r = choose(small(), req);
    EXPECT_EQ(chosen(r), "1.3.0.dev cu130");
    EXPECT_TRUE(has(r.reasons, "plan.reason.nightly_fallback"));
    EXPECT_TRUE(has(r.warnings, "plan.warn.nightly"));
    req.channel = ChannelChoice::Stable;
    r = choose(small(), req);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(has(r.hints, "plan.hint.nightly"));
    EXPECT_TRUE(has(r.hints, "plan.hint.python"));
    // Asked for nightly: nightly even when stable fits.
    req = machine("580.95.05", {"9.0"});
    req.channel = ChannelChoice::Nightly;
    r = choose(small(), req);
    EXPECT_EQ(chosen(r), "1.3.0.dev cu130");
    EXPECT_TRUE(has(r.reasons, "plan.reason.nightly_requested"));
}

TEST(PolicyRules, UnknownDriverTakesPypiDefault) {
    auto r = choose(small(), machine("", {"9.0"}));
    EXPECT_EQ(chosen(r), "1.2.0 cu130");
    EXPECT_TRUE(has(r.reasons, "plan.reason.variant_default"));
    EXPECT_TRUE(has(r.warnings, "plan.warn.driver_unknown"));
}

TEST(PolicyRules, ForcedVariantIsCheckedNotAccepted) {
    PolicyRequest req = machine("580.95.05", {"12.0"});
    req.variant = "cu126";
    auto r = choose(small(), req);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.code, ExitCode::NothingFits);
    EXPECT_TRUE(has(r.hints, "plan.hint.other_variant"));
    req.variant = "cu999";
    r = choose(small(), req);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.code, ExitCode::Usage);
    EXPECT_EQ(render(r.error, Lang::En), "no release has a variant \"cu999\"; known: cpu, cu126, cu128, cu129, cu130");
    // cpu on a GPU machine only when asked, with a warning.
    req.variant = "cpu";
    r = choose(small(), req);
    EXPECT_EQ(chosen(r), "1.2.0 cpu");
    EXPECT_TRUE(has(r.warnings, "plan.warn.cpu_on_gpu"));
}

TEST(PolicyRules, EvaluateListsEveryBlocker) {
    const Matrix& m = small();
    PolicyRequest req = machine("570.133.07", {"12.0"}, "3.13");
    req.release_filter = [](const Release&) { return false; };
    req.release_filter_text = "<1";
    const Release& r12 = m.releases[2];
    Candidate c = evaluate(m, req, r12, *r12.variant("cu130"));
    EXPECT_EQ(c.blockers, (std::vector<Blocker>{Blocker::Filter, Blocker::Runtime, Blocker::Coverage}));
    EXPECT_EQ(c.why_not.size(), 3u);
    EXPECT_TRUE(c.blocked_only_by({Blocker::Filter, Blocker::Runtime, Blocker::Coverage, Blocker::Python}));
    EXPECT_FALSE(c.blocked_only_by({Blocker::Runtime}));
    // Python 3.13 is offered by 1.2; 3.11 is not.
    req.machine.python = "3.11";
    c = evaluate(m, req, r12, *r12.variant("cu126"));
    EXPECT_EQ(c.blockers.front(), Blocker::Python);
    EXPECT_EQ(render(c.why_not.front(), Lang::En), "torch 1.2.0 has no wheels for Python 3.11 (it has 3.12, 3.13)");
    // Not published for the platform.
    req.machine.platform = {OsKind::Windows, CpuKind::X86_64};
    c = evaluate(m, req, r12, *r12.variant("cu126"));
    EXPECT_EQ(c.blockers.front(), Blocker::Platform);
    EXPECT_EQ(c.build, nullptr);
}
