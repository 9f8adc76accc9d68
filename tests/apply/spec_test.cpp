// The apply spec parser: what it accepts, and one line naming the file and the line for what it
// refuses (table-driven); the policy checked against the releases envfix knows.
#include <gtest/gtest.h>

#include "envfix/common/message.hpp"
#include "envfix/installer/apply_spec.hpp"
#include "envfix/matrix/matrix_loader.hpp"

using namespace envfix;
using installer::parse_apply_spec;

namespace {
std::string text_of(const Error& e) { return render(e.message, Lang::En); }
}  // namespace

TEST(ApplySpec, ReadsEveryFieldAndInheritsThePolicy) {
    auto s = parse_apply_spec(R"(version: 1
index:
  pytorch-index: http://mirror.local/whl
  index-url: http://mirror.local/pypi/simple
  extra-index-urls: [http://extra.local/simple]
  cert: certs/ca.pem
  offline: false
cache-dir: cache
wheels: wheels
wheels-layout: pep503
policy:
  channel: stable
  torch: ">=2.7"
  verify: true
environments:
  - name: comfy
    app: comfyui
    path: /opt/ComfyUI
    variant: cu128
  - venv: venvs/sd
    base-python: python3.11
  - venv: /srv/locked
    base-python: /usr/bin/python3
    lock: locks/sd.lock
    verify: false
  - python: /usr/bin/python3
)",
                              "/etc/envfix/ws.yaml", "/etc/envfix");
    ASSERT_TRUE(s) << text_of(s.error());
    EXPECT_EQ(s->index.pytorch_index, "http://mirror.local/whl");
    EXPECT_EQ(s->index.extra_index_urls.size(), 1u);
    EXPECT_EQ(s->index.cert, "/etc/envfix/certs/ca.pem");
    EXPECT_EQ(s->cache_dir, "/etc/envfix/cache");
    EXPECT_EQ(s->wheels, "/etc/envfix/wheels");
    EXPECT_EQ(s->wheels_layout, "pep503");
    ASSERT_EQ(s->environments.size(), 4u);
    const auto& comfy = s->environments[0];
    EXPECT_EQ(comfy.name, "comfy");
    EXPECT_EQ(comfy.app, "comfyui");
    EXPECT_EQ(comfy.policy.variant, "cu128");
    EXPECT_EQ(comfy.policy.channel, "stable");  // from policy
    EXPECT_EQ(comfy.policy.torch, ">=2.7");
    EXPECT_EQ(comfy.policy.verify, true);
    EXPECT_EQ(comfy.line, 16);
    const auto& sd = s->environments[1];
    EXPECT_EQ(sd.name, "/etc/envfix/venvs/sd");  // default name: the path
    EXPECT_EQ(sd.base_python, "python3.11");    // a name on PATH stays a name
    const auto& locked = s->environments[2];
    EXPECT_EQ(locked.lock, "/etc/envfix/locks/sd.lock");
    EXPECT_EQ(locked.policy.verify, false);
    EXPECT_EQ(s->environments[3].python, "/usr/bin/python3");
}

TEST(ApplySpec, WheelsMayBeAUrl) {
    auto s = parse_apply_spec("version: 1\nwheels: http://mirror.local/envfix-wheels/\nenvironments: [{venv: /v}]\n", "s.yaml", "/x");
    ASSERT_TRUE(s) << text_of(s.error());
    EXPECT_EQ(s->wheels, "http://mirror.local/envfix-wheels/");
}

struct BadSpec {
    const char* name;
    const char* text;
    const char* expected;  // the rendered error
};

class ApplySpecBad : public ::testing::TestWithParam<BadSpec> {};

TEST_P(ApplySpecBad, OneLineNamingTheFileAndLine) {
    auto s = parse_apply_spec(GetParam().text, "/etc/envfix/ws.yaml", "/etc/envfix");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ExitCode::BadInput);
    EXPECT_EQ(text_of(s.error()), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ApplySpecBad,
    ::testing::Values(
        BadSpec{"no_version", "environments: [{venv: /v}]\n",
                "/etc/envfix/ws.yaml: spec format version none; this envfix reads version 1 (write \"version: 1\")"},
        BadSpec{"newer_version", "version: 2\nenvironments: [{venv: /v}]\n",
                "/etc/envfix/ws.yaml: spec format version 2; this envfix reads version 1 (write \"version: 1\")"},
        BadSpec{"yaml_syntax", "version: 1\nenvironments: [{venv: /v}\n",
                "/etc/envfix/ws.yaml:3: end of sequence flow not found"},
        BadSpec{"unknown_key", "version: 1\nenviroments: []\n", "/etc/envfix/ws.yaml:2: unknown key \"enviroments\" in the spec"},
        BadSpec{"unknown_env_key", "version: 1\nenvironments:\n  - venv: /v\n    torchh: '2.7'\n",
                "/etc/envfix/ws.yaml:4: unknown key \"torchh\" in environments[0]"},
        BadSpec{"no_target", "version: 1\nenvironments:\n  - name: x\n",
                "/etc/envfix/ws.yaml:3: environments[0] names no environment (venv, app and path, or python)"},
        BadSpec{"two_targets", "version: 1\nenvironments:\n  - venv: /v\n    python: /usr/bin/python3\n",
                "/etc/envfix/ws.yaml:3: environments[0] names more than one environment (venv, app/path, python): one per entry"},
        BadSpec{"bad_channel", "version: 1\npolicy:\n  channel: beta\nenvironments: [{venv: /v}]\n",
                "/etc/envfix/ws.yaml:3: \"channel\" is \"beta\"; expected one of auto, nightly, stable"},
        BadSpec{"bad_bool", "version: 1\npolicy: {verify: maybe}\nenvironments: [{venv: /v}]\n",
                "/etc/envfix/ws.yaml:2: \"verify\" is not true or false"},
        BadSpec{"lock_and_variant", "version: 1\nenvironments:\n  - venv: /v\n    lock: a.lock\n    variant: cu128\n",
                "/etc/envfix/ws.yaml:3: environments[0]: a lock fixes the framework; channel, variant, torch and torch-from do not apply"},
        BadSpec{"base_without_venv", "version: 1\nenvironments:\n  - python: /usr/bin/python3\n    base-python: python3\n",
                "/etc/envfix/ws.yaml:3: environments[0]: base-python goes with venv"},
        BadSpec{"no_environments", "version: 1\nenvironments: []\n", "/etc/envfix/ws.yaml:1: no environments"},
        BadSpec{"duplicate_names", "version: 1\nenvironments:\n  - {venv: /a, name: x}\n  - {venv: /b, name: x}\n",
                "/etc/envfix/ws.yaml:4: two environments are named \"x\""},
        BadSpec{"not_a_list", "version: 1\nenvironments: {venv: /v}\n", "/etc/envfix/ws.yaml:2: \"environments\" is not a list"},
        BadSpec{"empty_string", "version: 1\nenvironments:\n  - venv: ''\n", "/etc/envfix/ws.yaml:3: \"venv\" is not a string"}),
    [](const auto& info) { return std::string(info.param.name); });

// The policy against the releases envfix knows: a value no release can satisfy is refused at its
// line, where the environment gives it or where the spec's `policy` does.
struct PolicyCase {
    const char* name;
    const char* text;
    const char* expected;  // "" accepted
};

class ApplySpecPolicy : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(ApplySpecPolicy, CheckedAgainstTheMatrix) {
    static const auto matrix = matrix::load_profiles();
    ASSERT_TRUE(matrix) << text_of(matrix.error());
    auto s = parse_apply_spec(GetParam().text, "/etc/envfix/ws.yaml", "/etc/envfix");
    if (s) {
        auto checked = installer::check_apply_policies(*s, *matrix);
        if (!checked) s = unexpected(checked.error());
    }
    if (std::string(GetParam().expected).empty()) {
        EXPECT_TRUE(s) << text_of(s.error());
        return;
    }
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ExitCode::BadInput);
    EXPECT_EQ(text_of(s.error()), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ApplySpecPolicy,
    ::testing::Values(
        PolicyCase{"release_line", "version: 1\npolicy:\n  torch: \"2.7\"\n  variant: cu128\nenvironments: [{venv: /v}]\n", ""},
        PolicyCase{"release", "version: 1\nenvironments:\n  - venv: /v\n    torch: 2.9.1\n", ""},
        PolicyCase{"range_and_nightly", "version: 1\nenvironments:\n  - venv: /v\n    torch: \">=2.15\"\n    channel: nightly\n", ""},
        PolicyCase{"lock_skips_the_policy", "version: 1\npolicy: {torch: \"2.99\"}\nenvironments:\n  - {venv: /v, lock: a.lock}\n", ""},
        PolicyCase{
            "no_such_release", "version: 1\nenvironments:\n  - venv: /v\n    torch: \"2.99\"\n",
            "/etc/envfix/ws.yaml:4: \"torch\" is \"2.99\": no framework release envfix knows matches it (it knows 2.0.0 … 2.16.0.dev)"},
        PolicyCase{"not_a_specifier", "version: 1\nenvironments:\n  - venv: /v\n    torch: \"~=2\"\n",
                   "/etc/envfix/ws.yaml:4: \"torch\" is \"~=2\", not a version (2.7, 2.7.1) or version specifier (\">=2.7,<2.12\"): "
                   "invalid version specifier \"~=2\": ~= needs at least two release numbers (~=2.7, not ~=2)"},
        PolicyCase{
            "stable_only", "version: 1\npolicy:\n  channel: stable\n  torch: \">=2.15\"\nenvironments: [{venv: /v}]\n",
            "/etc/envfix/ws.yaml:4: \"torch\" is \">=2.15\": no framework release envfix knows matches it (it knows 2.0.0 … 2.14.0)"},
        PolicyCase{"no_such_variant", "version: 1\npolicy:\n  verify: true\n  variant: cu999\nenvironments: [{venv: /a}, {venv: /b}]\n",
                   "/etc/envfix/ws.yaml:4: \"variant\" is \"cu999\": no framework release envfix knows has this variant (variants: "
                   "cpu, cu117, cu118, cu121, cu124, cu126, cu128, cu129, cu130, cu132)"},
        PolicyCase{"variant_not_in_the_line", "version: 1\npolicy:\n  torch: \"2.7\"\nenvironments:\n  - venv: /v\n    variant: cu130\n",
                   "/etc/envfix/ws.yaml:6: \"variant\" is \"cu130\": none of the releases the policy allows (2.7.0 … 2.7.1) has this "
                   "variant; they have cpu, cu118, cu126, cu128"}),
    [](const auto& info) { return std::string(info.param.name); });
