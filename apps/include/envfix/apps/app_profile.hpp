#pragma once
// App profiles as values: what envfix knows about ComfyUI, A1111, Forge, SD.Next, InvokeAI,
// Fooocus, kohya_ss ... — how to recognise their folders and find their Python (the probe part,
// probe/app_folder.hpp), which framework packages they manage, the torch range they support,
// what their installers pin, and which requirement files to re-check after a framework change.
// Loaded from profiles/apps/*.yaml (app_profiles.hpp); docs/apps.md describes the files.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/platform.hpp"
#include "envfix/probe/app_folder.hpp"
#include "envfix/standards/specifier.hpp"

namespace envfix::apps {

// A requirements file of the app, relative to its code folder; one '*' part matches any folder
// ("custom_nodes/*/requirements.txt").
struct AppRequirementsFile {
    std::string path;
    std::vector<platform::Os> os;  // only on these OSes (empty: all)
};

// What the app's own installer puts in when the framework is missing (A1111's TORCH_COMMAND).
struct AppInstallerPin {
    std::string package;  // "torch"
    std::string version;  // "2.1.2"
};
struct AppInstaller {
    std::string override_env;  // the variable that replaces its command ("TORCH_COMMAND"); "" none
    std::string when;  // when it reinstalls: "missing" (and a --reinstall-torch flag), ...
    std::vector<AppInstallerPin> pins;  // what it installs
    std::string source;  // the file that says so, for messages
};

struct AppProfile {
    probe::AppSignature app;  // name, display name, aliases, layouts, usual places
    std::string homepage;
    std::string summary;  // one line: what the app is
    // Framework packages the app needs (torch, torchvision, torchaudio): kept in line with torch,
    // and installed when missing.
    std::vector<std::string> packages;
    // Companions kept in line when present (xformers): built against one torch release.
    std::vector<std::string> optional;
    std::string torch;  // PEP 440 range the app supports ("" = none stated); checked at load
    std::string torch_source;  // where that range comes from (README, a version check in the code)
    std::optional<AppInstaller> installer;
    std::vector<AppRequirementsFile> requirements;
    // Installed distributions whose own requirements bind the app (InvokeAI is the `invokeai`
    // package: its Requires-Dist say which torch it takes).
    std::vector<std::string> distributions;
    std::string file;  // the profile file ("profiles/apps/comfyui.yaml")

    std::string_view name() const { return app.name; }
    std::string_view display() const { return app.display; }
    standards::SpecifierSet torch_range() const;  // empty set when none stated
};

struct AppCatalog {
    std::vector<AppProfile> apps;  // in file name order

    // By name or alias, case-insensitive; nullptr when unknown.
    const AppProfile* find(std::string_view name) const;
    const AppProfile* of(const probe::AppSignature* sig) const;  // the profile a signature belongs to
    // What probe's detection and target resolution take (ResolveOptions::apps).
    std::vector<probe::AppSignature> signatures() const;
    std::vector<std::string> names() const;
};

}  // namespace envfix::apps
