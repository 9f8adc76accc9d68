// What an app constrains when its framework changes (app_constraints.hpp). Pure.
#include "envfix/apps/app_constraints.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "envfix/standards/core_metadata.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::apps {

namespace {

// Companions published once per CUDA variant, with the variant as their local label.
bool variant_labelled(std::string_view pkg) { return pkg == "torchvision" || pkg == "torchaudio"; }

std::string public_of(const std::string& v) {
    auto parsed = standards::Version::try_parse(v);
    return parsed ? parsed->public_version() : v;
}
std::string local_of(const std::string& v) {
    auto parsed = standards::Version::try_parse(v);
    return parsed ? parsed->local() : "";
}

std::optional<std::string> matrix_companion(const matrix::Matrix* m, const std::string& torch, std::string_view pkg) {
    if (!m) return std::nullopt;
    auto t = standards::Version::try_parse(torch);
    if (!t) return std::nullopt;
    for (const auto& r : m->releases) {
        if (r.channel != matrix::Channel::Stable) continue;
        auto rv = standards::Version::try_parse(r.torch);
        if (!rv || *rv != t->without_local()) continue;
        const std::string* v = pkg == "torchvision"  ? &r.companions.torchvision
                               : pkg == "torchaudio" ? &r.companions.torchaudio
                               : pkg == "xformers"   ? &r.companions.xformers
                               : pkg == "triton"     ? &r.companions.triton
                                                     : nullptr;
        if (v && !v->empty()) return *v;
    }
    return std::nullopt;
}

class Checker {
public:
    explicit Checker(const AppCheckInput& in) : in_(in), app_(*in.profile) {
        out_.app = app_.app.name;
        for (const auto& p : in.planned) planned_[standards::canonicalize_name(p.name)] = p.version;
        auto t = planned_.find("torch");
        if (t != planned_.end()) torch_ = t->second;
        torch_v_ = standards::Version::try_parse(torch_);
    }

    AppConstraints run() {
        check_torch_range();
        check_distributions();
        check_companions();
        effective_ = planned_;
        for (const auto& c : out_.companions)
            if (!c.needed.empty() && !effective_.count(c.package)) effective_[c.package] = c.needed;
        check_requirement_files();
        add_notes();
        std::stable_sort(out_.findings.begin(), out_.findings.end(),
                         [](const AppFinding& a, const AppFinding& b) { return rank(a.kind) < rank(b.kind); });
        return std::move(out_);
    }

private:
    static int rank(AppFindingKind k) {
        switch (k) {
            case AppFindingKind::Conflict: return 0;
            case AppFindingKind::Companion: return 1;
            case AppFindingKind::NotChecked: return 2;
            case AppFindingKind::Note: return 3;
        }
        return 3;
    }

    void add(AppFindingKind kind, Message m, std::string package, std::string source) {
        out_.findings.push_back({kind, std::move(m), std::move(package), std::move(source)});
    }

    const standards::InstalledDist* installed(std::string_view name) const { return in_.installed ? in_.installed->find(name) : nullptr; }

    // Whether a requirement applies in this environment; unknown facts count as applying.
    bool applies(const standards::Requirement& r) const {
        if (!r.marker) return true;
        for (auto v : r.marker->variables())
            if (std::find(in_.unknown_markers.begin(), in_.unknown_markers.end(), v) != in_.unknown_markers.end()) return true;
        auto a = r.applies(in_.markers);
        return !a || *a;
    }

    void check_torch_range() {
        if (app_.torch.empty()) return;
        out_.torch_range = out_.torch_range & app_.torch_range();
        out_.range_sources.push_back(app_.torch_source);
        if (torch_v_ && !app_.torch_range().contains(*torch_v_, true))
            add(AppFindingKind::Conflict,
                msg("apps.finding.torch_range",
                    {{"app", app_.app.display}, {"range", app_.torch}, {"source", app_.torch_source}, {"version", torch_}}),
                "torch", app_.file);
    }

    // The app's own packages (invokeai): their requirements bind the planned versions.
    void check_distributions() {
        for (const auto& name : app_.distributions) {
            const standards::InstalledDist* d = installed(name);
            if (!d || d->problem) continue;
            const std::string source = d->name + " " + d->version;
            for (const auto& text : d->metadata.requires_dist) {
                auto r = standards::Requirement::parse(text);
                if (!r || !applies(*r)) continue;
                const std::string pkg = r->canonical_name();
                if (pkg == "torch" && !r->specifier.empty()) {
                    out_.torch_range = out_.torch_range & r->specifier;
                    out_.range_sources.push_back(source + ": " + r->to_string());
                }
                auto p = planned_.find(pkg);
                if (p == planned_.end()) continue;
                auto v = standards::Version::try_parse(p->second);
                if (v && r->url.empty() && !r->specifier.contains(*v, true))
                    add(AppFindingKind::Conflict,
                        msg("apps.finding.dist_requirement",
                            {{"source", source}, {"requirement", r->to_string()}, {"package", pkg}, {"version", p->second}}),
                        pkg, source);
            }
        }
    }

    // What an installed companion requires of torch ("==2.1.2"), and whether the planned torch fits.
    std::pair<std::string, bool> built_for(const standards::InstalledDist& d) const {
        for (const auto& text : d.metadata.requires_dist) {
            auto r = standards::Requirement::parse(text);
            if (!r || r->canonical_name() != "torch" || !applies(*r)) continue;
            if (r->specifier.empty()) return {"", true};
            return {r->specifier.to_string(), !torch_v_ || r->specifier.contains(*torch_v_, true)};
        }
        return {"", true};
    }

    void check_companion(const std::string& pkg, bool required) {
        if (pkg == "torch") return;
        CompanionChange c;
        c.package = pkg;
        c.required = required;
        if (auto p = planned_.find(pkg); p != planned_.end())
            c.needed = p->second;
        else if (auto m = matrix_companion(in_.matrix, torch_, pkg))
            c.needed = *m;
        const std::string torch_local = local_of(torch_);
        if (!c.needed.empty() && variant_labelled(pkg) && local_of(c.needed).empty() && !torch_local.empty()) c.needed += "+" + torch_local;
        const standards::InstalledDist* d = installed(pkg);
        if (d) {
            c.installed = d->version;
            bool fits = true;
            std::tie(c.built_for, fits) = built_for(*d);
            bool change = false;
            if (!c.needed.empty()) {
                change =
                    public_of(c.installed) != public_of(c.needed) || (variant_labelled(pkg) && local_of(c.installed) != local_of(c.needed));
            } else {
                change = !fits;
            }
            if (!change) return;
            if (!c.needed.empty())
                add(AppFindingKind::Companion,
                    msg("apps.finding.companion_upgrade",
                        {{"package", pkg}, {"installed", c.installed}, {"needed", c.needed}, {"torch", torch_}}),
                    pkg, "");
            else
                add(AppFindingKind::Companion,
                    msg("apps.finding.companion_rebuild",
                        {{"package", pkg}, {"installed", c.installed}, {"built_for", c.built_for}, {"torch", torch_}}),
                    pkg, "");
        } else {
            if (!required) return;
            if (!c.needed.empty())
                add(AppFindingKind::Companion,
                    msg("apps.finding.companion_install",
                        {{"app", app_.app.display}, {"package", pkg}, {"needed", c.needed}, {"torch", torch_}}),
                    pkg, "");
            else
                add(AppFindingKind::Companion,
                    msg("apps.finding.companion_install_unknown", {{"app", app_.app.display}, {"package", pkg}, {"torch", torch_}}), pkg,
                    "");
        }
        out_.companions.push_back(std::move(c));
    }

    void check_companions() {
        for (const auto& p : app_.packages) check_companion(p, true);
        for (const auto& p : app_.optional)
            if (std::find(app_.packages.begin(), app_.packages.end(), p) == app_.packages.end()) check_companion(p, false);
    }

    // The version a requirement on `pkg` would meet after the change, if the change touches it.
    void check_requirement(const standards::Requirement& r, const std::string& source) {
        const std::string pkg = r.canonical_name();
        if (!applies(r)) return;
        // An exact pin of a companion that must be rebuilt for the new torch (its successor unknown).
        for (const auto& c : out_.companions)
            if (c.package == pkg && c.needed.empty() && !c.installed.empty() && r.url.empty() && r.specifier.size() == 1 &&
                r.specifier.specifiers()[0].op() == standards::SpecOp::Equal && !r.specifier.specifiers()[0].is_wildcard())
                add(AppFindingKind::Conflict,
                    msg("apps.finding.requirement_pins_companion",
                        {{"source", source}, {"requirement", r.to_string()}, {"package", pkg}, {"torch", torch_}}),
                    pkg, source);
        auto p = effective_.find(pkg);
        if (p == effective_.end()) return;
        if (!r.url.empty()) {
            add(AppFindingKind::NotChecked, msg("apps.finding.url", {{"source", source}, {"package", pkg}, {"url", r.url}}), pkg, source);
            return;
        }
        auto v = standards::Version::try_parse(p->second);
        if (v && !r.specifier.contains(*v, true))
            add(AppFindingKind::Conflict,
                msg("apps.finding.requirement",
                    {{"source", source}, {"requirement", r.to_string()}, {"package", pkg}, {"version", p->second}}),
                pkg, source);
    }

    void check_requirement_files() {
        for (const auto& file : in_.requirements) {
            out_.checked_files.push_back(file.source);
            for (const auto& line : file.lines) {
                const std::string source = file.source + ":" + std::to_string(line.line);
                switch (line.kind) {
                    case standards::ReqLineKind::Requirement:
                        for (const auto& r : line.requirements) check_requirement(r, source);
                        break;
                    case standards::ReqLineKind::Url:
                        add(AppFindingKind::NotChecked, msg("apps.finding.url_line", {{"source", source}, {"url", line.target}}), "",
                            source);
                        break;
                    case standards::ReqLineKind::Path:
                    case standards::ReqLineKind::Editable:
                        add(AppFindingKind::NotChecked, msg("apps.finding.path_line", {{"source", source}, {"target", line.target}}), "",
                            source);
                        break;
                    case standards::ReqLineKind::Invalid:
                        if (line.error) add(AppFindingKind::NotChecked, line.error->message, "", source);
                        break;
                    default: break;
                }
            }
        }
        for (const auto& e : in_.requirement_problems) add(AppFindingKind::NotChecked, e.message, "", std::string(e.message.arg("source")));
    }

    void add_notes() {
        if (app_.installer && torch_v_) {
            for (const auto& pin : app_.installer->pins) {
                if (standards::canonicalize_name(pin.package) != "torch") continue;
                auto pv = standards::Version::try_parse(pin.version);
                if (!pv || pv->without_local() == torch_v_->without_local()) continue;
                if (app_.installer->override_env.empty())
                    add(AppFindingKind::Note,
                        msg("apps.finding.installer_pin",
                            {{"app", app_.app.display}, {"pin", pin.version}, {"when", app_.installer->when}}),
                        "torch", app_.installer->source);
                else
                    add(AppFindingKind::Note,
                        msg("apps.finding.installer_pin_env", {{"app", app_.app.display},
                                                               {"pin", pin.version},
                                                               {"when", app_.installer->when},
                                                               {"env", app_.installer->override_env},
                                                               {"version", torch_}}),
                        "torch", app_.installer->source);
            }
        }
        if (in_.pip_missing) add(AppFindingKind::Note, msg("apps.finding.no_pip", {{"app", app_.app.display}}), "pip", "");
    }

    const AppCheckInput& in_;
    const AppProfile& app_;
    AppConstraints out_;
    std::map<std::string, std::string> planned_;
    std::map<std::string, std::string> effective_;
    std::string torch_;
    std::optional<standards::Version> torch_v_;
};

}  // namespace

std::string_view app_finding_kind_name(AppFindingKind k) {
    switch (k) {
        case AppFindingKind::Conflict: return "conflict";
        case AppFindingKind::Companion: return "companion";
        case AppFindingKind::NotChecked: return "not-checked";
        case AppFindingKind::Note: return "note";
    }
    return "note";
}

bool AppConstraints::has_conflicts() const {
    return std::any_of(findings.begin(), findings.end(), [](const AppFinding& f) { return f.kind == AppFindingKind::Conflict; });
}

std::vector<PlannedPackage> AppConstraints::with_companions(const std::vector<PlannedPackage>& planned) const {
    std::vector<PlannedPackage> out = planned;
    for (const auto& c : companions) {
        if (c.needed.empty()) continue;
        bool present =
            std::any_of(out.begin(), out.end(), [&](const PlannedPackage& p) { return standards::canonicalize_name(p.name) == c.package; });
        if (!present) out.push_back({c.package, c.needed});
    }
    return out;
}

AppConstraints check_app_constraints(const AppCheckInput& in) {
    if (!in.profile) return {};
    return Checker(in).run();
}

}  // namespace envfix::apps
