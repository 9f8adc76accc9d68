#pragma once
// What an app constrains when its framework changes, judged before anything changes: the
// companions that must move with torch (torchvision, torchaudio, xformers — each built for one
// torch release), the torch range the app supports, the app's requirement files and its own
// distributions' requirements re-checked against the planned versions, and what envfix cannot
// check (git+ URLs, local paths, lines pip would refuse). Pure: the caller reads the files
// (app_target.hpp, check_app_target(), does it for an app folder).
//
//   AppCheckInput in{.profile = &app, .planned = {{"torch", "2.8.0+cu128"}}, .installed = &set,
//                    .matrix = &matrix, .requirements = files, .markers = marker_environment(facts)};
//   AppConstraints c = check_app_constraints(in);
//   for (const auto& f : c.findings) reporter.warn(f.message);   // before installing
//   c.has_conflicts();                                            // the plan breaks the app
#include <string>
#include <vector>

#include "envfix/apps/app_profile.hpp"
#include "envfix/common/message.hpp"
#include "envfix/matrix/matrix.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/marker.hpp"
#include "envfix/standards/requirements_file.hpp"

namespace envfix::apps {

// A package version the change will install ("torch", "2.8.0+cu128").
struct PlannedPackage {
    std::string name;
    std::string version;
};

enum class AppFindingKind {
    Conflict,  // the planned versions break a requirement of the app: say so before changing anything
    Companion,  // a companion must change (or be installed) with torch: the install brings it in line
    NotChecked,  // a requirement envfix cannot judge (git+ URL, local path, a line pip would refuse)
    Note,  // worth knowing (the app's installer puts another torch back; no pip in the environment)
};
std::string_view app_finding_kind_name(AppFindingKind k);  // "conflict", "companion", "not-checked", "note"

struct AppFinding {
    AppFindingKind kind = AppFindingKind::Note;
    Message message;  // one sentence, in the message catalog (apps.finding.*)
    std::string package;  // canonical name, "" when none
    std::string source;  // "ComfyUI/requirements.txt:12", "invokeai 6.0.0", the profile file
};

// A companion of torch as the change leaves it.
struct CompanionChange {
    std::string package;  // canonical: "torchvision"
    std::string installed;  // version now, "" when not installed
    std::string needed;  // the version to install ("0.23.0"), "" when envfix does not know it
    std::string built_for;  // what the installed one requires of torch ("==2.1.2"), "" when nothing
    bool required = false;  // the app needs it (profile `packages`), else kept in line when present
};

struct AppConstraints {
    std::string app;  // profile name
    // The profile's range, and the app distributions' requirements on torch ("~=2.7.0").
    standards::SpecifierSet torch_range;
    std::vector<std::string> range_sources;
    std::vector<CompanionChange> companions;  // only those that change or must be installed
    std::vector<std::string> checked_files;  // requirement files read, as named in findings
    std::vector<AppFinding> findings;  // in the order: torch range, companions, requirements, notes

    bool has_conflicts() const;
    // The planned set with the companions' needed versions added: what the install should bring.
    std::vector<PlannedPackage> with_companions(const std::vector<PlannedPackage>& planned) const;
};

struct AppCheckInput {
    const AppProfile* profile = nullptr;
    std::vector<PlannedPackage> planned;  // must name torch; companions optional
    const standards::InstalledSet* installed = nullptr;  // the environment now (nullptr: nothing known)
    const matrix::Matrix* matrix = nullptr;  // companion versions of the planned torch release
    std::vector<standards::RequirementsFile> requirements;  // the app's requirement files, read
    std::vector<Error> requirement_problems;  // files that could not be read (reported NotChecked)
    standards::MarkerEnvironment markers;  // the environment's, for requirements with markers
    // Marker variables whose value is unknown (facts read from files): a requirement whose marker
    // reads one counts as applying.
    std::vector<standards::MarkerVariable> unknown_markers;
    bool pip_missing = false;  // the layout may lack pip and the environment has none
};

AppConstraints check_app_constraints(const AppCheckInput& in);

}  // namespace envfix::apps
