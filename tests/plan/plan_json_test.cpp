// The plan file (plan.hpp): what serialize_plan writes, parse_plan reads back; bad files are
// refused with one line naming them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "envfix/plan/plan.hpp"

using namespace envfix;
using namespace envfix::plan;

namespace {

Plan sample() {
    Plan p;
    p.torch = "2.11.0+cu128";
    p.release = "2.11.0";
    p.channel = "stable";
    p.variant = "cu128";
    p.cuda = "12.8.0";
    p.driver_needed = "570.26";
    p.framework_index = "https://download.pytorch.org/whl/cu128/";
    p.target = {true, "3.11.2", "/srv/venv/bin/python", "/srv/venv", "linux-x86_64", "cp311-cp311-manylinux_2_36_x86_64",
                {"NVIDIA GeForce RTX 5090 (sm_120)"}, "570.133.07"};
    p.reasons = {msg("plan.reason.newest_stable", {{"torch", "2.11.0"}})};
    p.warnings = {msg("plan.warn.nightly", {{"torch", "x"}})};
    p.alternatives = {{"2.14.0", "cu130", "stable", true, {msg("plan.index.no_page", {{"url", "u"}, {"variant", "cu130"}})}}};
    PlannedWheel w;
    w.name = w.canonical_name = "torch";
    w.version = "2.11.0+cu128";
    w.filename = "torch-2.11.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl";
    w.url = "https://download.pytorch.org/whl/cu128/torch-2.11.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl";
    w.sha256 = std::string(64, 'a');
    w.size = 900000000;
    w.index = "https://download.pytorch.org/whl/cu128/torch/";
    w.requires_python = ">=3.10";
    w.metadata = MetadataSource::Range;
    w.framework = true;
    w.required_by = {""};
    w.replaces = InstalledRef{"2.7.0+cu126", "/srv/venv/lib/python3.11/site-packages/torch-2.7.0+cu126.dist-info"};
    p.install.push_back(w);
    p.keep.push_back({"filelock", "filelock", "3.16.1", {"torch 2.11.0+cu128"}});
    p.remove.push_back({"nvidia-cudnn-cu12", "nvidia-cudnn-cu12", "9.5.1.17", "/x.dist-info",
                        msg("plan.remove.runtime", {{"major", "12"}, {"new", "13"}})});
    return p;
}

}  // namespace

TEST(PlanFile, RoundTrip) {
    Plan p = sample();
    std::string text = serialize_plan(p);
    auto back = parse_plan(text, "plan.json");
    ASSERT_TRUE(back) << render(back.error().message, Lang::En);
    EXPECT_EQ(serialize_plan(*back), text);
    EXPECT_EQ(back->install.at(0).replaces->version, "2.7.0+cu126");
    EXPECT_EQ(back->install.at(0).metadata, MetadataSource::Range);
    EXPECT_EQ(back->remove.at(0).reason.arg("major"), "12");

    Plan f;
    f.target.platform = "windows-x86_64";
    f.failure = PlanFailure{ExitCode::NothingFits, msg("plan.nothing_fits", {{"platform", "p"}}), {msg("plan.hint.cpu")}};
    auto fb = parse_plan(serialize_plan(f), "f.json");
    ASSERT_TRUE(fb);
    ASSERT_TRUE(fb->failure);
    EXPECT_EQ(fb->failure->code, ExitCode::NothingFits);
    EXPECT_EQ(fb->failure->hints.at(0).key, "plan.hint.cpu");
}

TEST(PlanFile, RenderedMessagesAndFields) {
    auto j = nlohmann::json::parse(serialize_plan(sample(), [](const Message& m) { return render(m, Lang::En); }));
    EXPECT_EQ(j["version"], kPlanFormatVersion);
    EXPECT_EQ(j["packages"][0]["size"], 900000000);
    EXPECT_EQ(j["packages"][0]["sha256"], std::string(64, 'a'));
    EXPECT_EQ(j["reasons"][0]["message"], "torch 2.11.0 is the newest stable release with a build for this machine");
    EXPECT_EQ(j["remove"][0]["reason"]["message"], "CUDA 12 runtime of the old stack; the new build uses CUDA 13");
}

TEST(PlanFile, BadFiles) {
    struct Case {
        const char* text;
        const char* message;
    } cases[] = {
        {"not json", "p.json is not a plan file: not a JSON object"},
        {"{}", "p.json is not a plan file: it has no version"},
        {"{\"version\": 7}", "p.json is a plan of format version 7; this envfix reads version 1"},
        {"{\"version\": 1, \"offline\": false}", "p.json is not a plan file: field target is missing"},
    };
    for (const auto& c : cases) {
        auto r = parse_plan(c.text, "p.json");
        ASSERT_FALSE(r) << c.text;
        EXPECT_EQ(r.error().code, ExitCode::BadInput);
        EXPECT_EQ(render(r.error().message, Lang::En), c.message);
    }
    auto j = nlohmann::json::parse(serialize_plan(sample()));
    j["packages"][0]["size"] = "big";
    auto r = parse_plan(j.dump(), "p.json");
    ASSERT_FALSE(r);
    EXPECT_EQ(render(r.error().message, Lang::En), "p.json is not a plan file: field size has the wrong type");
}
