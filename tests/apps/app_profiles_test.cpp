// The app profiles: the shipped files load, the built-in snapshot holds the same data, and every
// schema error is one line naming the file and line (ExitCode::ProfileInvalid).
#include <gtest/gtest.h>

#include <set>

#include "envfix/apps/app_profiles.hpp"
#include "envfix/common/fs.hpp"
#include "support.hpp"

namespace envfix {
namespace {

using apps::AppCatalog;
using matrix::ProfileText;

AppCatalog shipped() {
    auto c = apps::load_app_profiles_dir(test::source_dir() / "profiles");
    EXPECT_TRUE(c) << (c ? "" : render(c.error().message, Lang::En));
    return c ? *c : AppCatalog{};
}

TEST(AppProfiles, ShippedFilesNameTheSevenApps) {
    auto c = shipped();
    const auto list = c.names();
    std::set<std::string> names(list.begin(), list.end());
    for (const char* n : {"comfyui", "a1111", "forge", "sdnext", "invokeai", "fooocus", "kohya_ss"})
        EXPECT_TRUE(names.count(n)) << n;
    for (const auto& a : c.apps) {
        EXPECT_FALSE(a.app.layouts.empty()) << a.app.name;
        EXPECT_FALSE(a.app.places.empty()) << a.app.name;
        EXPECT_FALSE(a.packages.empty()) << a.app.name;
        EXPECT_EQ(a.packages.front(), "torch") << a.app.name;
        for (const auto& l : a.app.layouts) {
            EXPECT_FALSE(l.markers.empty()) << a.app.name << "/" << l.name;
            EXPECT_FALSE(l.environments.empty()) << a.app.name << "/" << l.name;
        }
    }
    const auto* comfy = c.find("comfyui");
    ASSERT_TRUE(comfy);
    EXPECT_EQ(comfy->torch, ">=2.7");
    EXPECT_TRUE(comfy->torch_range().contains(*standards::Version::parse("2.8.0+cu128")));
    EXPECT_FALSE(comfy->torch_range().contains(*standards::Version::parse("2.6.0")));
    const auto& portable = comfy->app.layouts.front();
    EXPECT_EQ(portable.name, "portable");
    EXPECT_TRUE(portable.pip_may_be_missing);
    EXPECT_EQ(portable.code, "ComfyUI");
    EXPECT_EQ(portable.start.front(), "{python}");
    EXPECT_EQ(c.find("invokeai")->distributions, std::vector<std::string>{"invokeai"});
    const auto* a1111 = c.find("a1111");
    ASSERT_TRUE(a1111->installer);
    EXPECT_EQ(a1111->installer->override_env, "TORCH_COMMAND");
    EXPECT_EQ(a1111->installer->pins.front().version, "2.1.2");
}

TEST(AppProfiles, NamesAndAliasesAnswerCaseInsensitively) {
    auto c = shipped();
    EXPECT_EQ(c.find("ComfyUI")->app.name, "comfyui");
    EXPECT_EQ(c.find("comfy")->app.name, "comfyui");
    EXPECT_EQ(c.find("AUTOMATIC1111")->app.name, "a1111");
    EXPECT_EQ(c.find("kohya")->app.name, "kohya_ss");
    EXPECT_EQ(c.find("reforge")->app.name, "forge");
    EXPECT_EQ(c.find("nope"), nullptr);
    EXPECT_EQ(c.of(nullptr), nullptr);
    auto sigs = c.signatures();
    ASSERT_EQ(sigs.size(), c.apps.size());
    EXPECT_EQ(c.of(&sigs[1])->app.name, c.apps[1].app.name);
}

// The binary carries what the files say (snapshot made at build time from the same files).
TEST(AppProfiles, BuiltInCopyMatchesTheFiles) {
    auto files = shipped();
    auto built_in = apps::load_embedded_app_profiles();
    ASSERT_TRUE(built_in) << render(built_in.error().message, Lang::En);
    ASSERT_EQ(built_in->apps.size(), files.apps.size());
    for (size_t i = 0; i < files.apps.size(); ++i) {
        EXPECT_EQ(built_in->apps[i].file, "profiles/apps/" + std::filesystem::path(files.apps[i].file).filename().string());
        files.apps[i].file = built_in->apps[i].file;
    }
    EXPECT_EQ(apps::encode_app_snapshot(*built_in), apps::encode_app_snapshot(files));
    // Default loading takes the built-in copy; ENVFIX_PROFILES_DIR and --profiles take files.
    auto deflt = apps::load_app_profiles();
    ASSERT_TRUE(deflt);
    EXPECT_EQ(deflt->apps.size(), files.apps.size());
}

TEST(AppProfiles, SnapshotRoundTripAndDamage) {
    auto c = shipped();
    auto bytes = apps::encode_app_snapshot(c);
    auto back = apps::decode_app_snapshot(bytes);
    ASSERT_TRUE(back);
    EXPECT_EQ(apps::encode_app_snapshot(*back), bytes);
    for (std::string bad : {std::string("XXXX\x01"), bytes.substr(0, bytes.size() / 2), bytes + "x"}) {
        auto d = apps::decode_app_snapshot(bad);
        ASSERT_FALSE(d);
        EXPECT_EQ(d.error().message.key, "apps.bad_snapshot");
    }
    std::string other_version = bytes;
    other_version[4] = 9;
    EXPECT_FALSE(apps::decode_app_snapshot(other_version));
}

TEST(AppProfiles, MissingFolderIsBadInput) {
    test::TempDir dir;
    auto r = apps::load_app_profiles_dir(dir.path());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::BadInput);
    EXPECT_NE(render(r.error().message, Lang::En).find((dir / "apps").string()), std::string::npos);
}

// A minimal valid profile; each case below breaks one thing in it.
const char* kValid = R"(schema_version: 1
name: demo
display: Demo
summary: a demo app
homepage: https://example.org/demo
layouts:
  - name: git
    markers: [main.py]
    environments: [venv]
    start: ["{python}", "main.py"]
places:
  linux: ["~/demo"]
framework:
  packages: [torch, torchvision]
  torch: ">=2.5"
  torch_source: "README"
installer:
  override_env: TORCH_COMMAND
  when: "torch missing"
  pins: {torch: "2.5.1"}
  source: launch.py
requirements:
  - requirements.txt
  - {path: "plugins/*/requirements.txt", os: [windows]}
distributions: [demo-app]
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
    auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
}

TEST(AppProfiles, ValidMinimalProfile) {
    auto c = apps::parse_app_profiles({{"demo.yaml", "apps/demo.yaml", kValid}});
    ASSERT_TRUE(c) << render(c.error().message, Lang::En);
    const auto& a = c->apps.at(0);
    EXPECT_EQ(a.app.places.at(0).os, platform::Os::Linux);
    EXPECT_EQ(a.requirements.at(1).os, std::vector<platform::Os>{platform::Os::Windows});
    EXPECT_EQ(a.distributions.at(0), "demo-app");
    EXPECT_EQ(a.app.layouts.at(0).code, ".");
    EXPECT_FALSE(a.app.layouts.at(0).pip_may_be_missing);
}

struct BadCase {
    const char* what;
    std::string text;
    const char* key;
    int line;
};

TEST(AppProfiles, SchemaErrorsNameFileAndLine) {
    const std::string v = kValid;
    const std::vector<BadCase> cases = {
        {"yaml syntax", replace(v, "display: Demo", "display: [Demo"), "profiles.yaml_syntax", 4},
        {"no schema_version", replace(v, "schema_version: 1\n", ""), "profiles.no_schema_version", 1},
        {"schema_version 2", replace(v, "schema_version: 1", "schema_version: 2"), "profiles.schema_version", 1},
        {"unknown top field", replace(v, "summary:", "sumary:"), "profiles.unknown_field", 4},
        {"missing display", replace(v, "display: Demo\n", ""), "profiles.missing_field", 1},
        {"name not the file", replace(v, "name: demo", "name: other"), "apps.profile.name_mismatch", 2},
        {"bad name", replace(v, "name: demo", "name: Demo App"), "apps.profile.bad_name", 2},
        {"unknown layout field", replace(v, "    markers: [main.py]", "    marker: [main.py]"), "profiles.unknown_field", 8},
        {"no markers", replace(v, "markers: [main.py]", "markers: []"), "profiles.empty_list", 8},
        {"absolute marker", replace(v, "markers: [main.py]", "markers: [/opt/main.py]"), "apps.profile.bad_path", 8},
        {"backslash", replace(v, "environments: [venv]", "environments: ['env\\python']"), "apps.profile.bad_path", 9},
        {"star in marker", replace(v, "markers: [main.py]", "markers: ['x*.py']"), "apps.profile.bad_path", 8},
        {"bad os", replace(v, "    markers: [main.py]", "    os: [win]\n    markers: [main.py]"), "profiles.bad_choice", 8},
        {"bad pip", replace(v, "    markers: [main.py]", "    pip: maybe\n    markers: [main.py]"), "profiles.bad_choice", 8},
        {"placeholder", replace(v, "\"main.py\"]", "\"{app}/main.py\"]"), "apps.profile.bad_placeholder", 10},
        {"duplicate layout",
         replace(v, "places:", "  - name: git\n    markers: [x]\n    environments: [venv]\nplaces:"), "profiles.duplicate", 11},
        {"relative place", replace(v, "[\"~/demo\"]", "[\"demo\"]"), "apps.profile.bad_path", 12},
        {"bad torch range", replace(v, "torch: \">=2.5\"", "torch: \">=two\""), "apps.profile.bad_specifier", 15},
        {"range without source", replace(v, "  torch_source: \"README\"\n", ""), "profiles.missing_field", 14},
        {"bad package", replace(v, "[torch, torchvision]", "[torch, \"torch vision\"]"), "apps.profile.bad_package", 14},
        {"bad pin", replace(v, "{torch: \"2.5.1\"}", "{torch: \"latest\"}"), "apps.profile.bad_version", 20},
        {"star place in requirement", replace(v, "plugins/*/requirements.txt", "plugins/x*/requirements.txt"),
         "apps.profile.bad_path", 24},
        {"pins not a mapping", replace(v, "{torch: \"2.5.1\"}", "[torch]"), "profiles.want_map", 20},
    };
    for (const auto& c : cases) {
        auto r = apps::parse_app_profiles({{"demo.yaml", "profiles/apps/demo.yaml", c.text}});
        ASSERT_FALSE(r) << c.what;
        EXPECT_EQ(r.error().code, ExitCode::ProfileInvalid) << c.what;
        EXPECT_EQ(r.error().message.key, c.key) << c.what << ": " << render(r.error().message, Lang::En);
        const std::string line = render(r.error().message, Lang::En);
        EXPECT_TRUE(line.starts_with("profiles/apps/demo.yaml:" + std::to_string(c.line) + ":")) << c.what << ": " << line;
        EXPECT_EQ(line.find('\n'), std::string::npos) << c.what;
    }
}

TEST(AppProfiles, NamesAreUniqueAcrossFiles) {
    std::string other = replace(replace(kValid, "name: demo", "name: other"), "display: Demo", "display: Other\naliases: [demo]");
    auto r = apps::parse_app_profiles({{"demo.yaml", "apps/demo.yaml", kValid}, {"other.yaml", "apps/other.yaml", other}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.key, "apps.profile.name_taken");
    EXPECT_NE(render(r.error().message, Lang::En).find("apps/other.yaml:2:"), std::string::npos)
        << render(r.error().message, Lang::En);
}

}  // namespace
}  // namespace envfix
