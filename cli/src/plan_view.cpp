#include "plan_view.hpp"

#include "envfix/common/strings.hpp"
#include "probe_view.hpp"

namespace envfix::cli {

namespace {

using plan::Plan;

constexpr size_t kAlternativesShown = 8;

std::string or_unknown(const std::string& s) { return s.empty() ? t(msg("plan.view.unknown")) : s; }

void print_list(const std::string& header, const std::vector<Message>& list) {
    if (list.empty()) return;
    print(header);
    for (const auto& m : list) print("  - " + t(m));
}

std::string target_line(const Plan& p) {
    const auto& tg = p.target;
    std::string gpus = tg.gpus.empty() ? t(msg("plan.view.no_gpu")) : str::join(tg.gpus, ", ");
    return t(msg(tg.this_machine ? "plan.view.this_machine" : "plan.view.other_machine", {{"gpus", gpus},
                                                                                         {"driver", or_unknown(tg.driver)},
                                                                                         {"platform", tg.platform},
                                                                                         {"python", or_unknown(tg.python)}}));
}

void print_alternatives(const Plan& p, bool verbose) {
    if (p.alternatives.empty()) return;
    print(t(msg("plan.view.alternatives")));
    size_t shown = 0;
    for (const auto& a : p.alternatives) {
        if (!verbose && shown == kAlternativesShown) break;
        std::vector<std::string> why;
        for (const auto& w : a.why) why.push_back(t(w));
        print("  - " + t(msg("plan.view.alternative", {{"torch", a.torch}, {"variant", a.variant}, {"channel", a.channel},
                                                       {"why", str::join(why, "; ")}})));
        ++shown;
    }
    if (shown < p.alternatives.size())
        print("  " + t(msg("plan.view.alternatives_more", {{"count", std::to_string(p.alternatives.size() - shown)}})));
}

void print_packages(const Plan& p) {
    if (p.install.empty()) {
        print(t(msg("plan.view.install_none")));
    } else {
        uint64_t total = 0;
        bool all_known = true;
        for (const auto& w : p.install) {
            if (w.size) total += *w.size;
            else all_known = false;
        }
        std::string size = str::human_bytes(total) + (all_known ? "" : " + " + t(msg("plan.view.size_unknown")));
        print(t(msg("plan.view.install", {{"count", std::to_string(p.install.size())}, {"size", size}})));
        Table table({t(msg("plan.view.col.package")), t(msg("plan.view.col.version")), t(msg("plan.view.col.size")),
                     t(msg("plan.view.col.replaces")), t(msg("plan.view.col.from"))});
        for (const auto& w : p.install)
            table.add({w.name, w.version, w.size ? str::human_bytes(*w.size) : "?", w.replaces ? w.replaces->version : "-",
                       std::string(plan::metadata_source_name(w.metadata))});
        std::string text = table.str();
        text.pop_back();
        print(text);
    }
    if (!p.keep.empty()) {
        std::vector<std::string> names;
        for (const auto& k : p.keep) names.push_back(k.name + " " + k.version);
        print(t(msg("plan.view.keep", {{"count", std::to_string(p.keep.size())}, {"names", str::join(names, ", ")}})));
    }
    if (!p.remove.empty()) {
        print(t(msg("plan.view.remove", {{"count", std::to_string(p.remove.size())}})));
        for (const auto& r : p.remove) print("  - " + r.name + " " + r.version + ": " + t(r.reason));
    }
}

}  // namespace

Json plan_json(const Plan& plan) {
    Json body = Json::parse(plan::serialize_plan(plan, [](const Message& m) { return t(m); }));
    Json j;
    j["schema_version"] = kJsonSchemaVersion;
    for (auto& [k, v] : body.items()) j[k] = v;
    if (plan.failure) {
        Json e = error_json(Error{plan.failure->code, plan.failure->message});
        Json hints = Json::array();
        for (const auto& h : plan.failure->hints) hints.push_back(t(h));
        e["hint"] = hints.empty() ? Json(nullptr) : hints.front();
        e["hints"] = hints;
        j["error"] = e;
    } else {
        j["error"] = nullptr;
    }
    return j;
}

void print_plan(const Plan& p, bool verbose) {
    if (p.failure) {
        print(t(msg("plan.view.nothing_fits")) + " " + t(p.failure->message));
        print(target_line(p));
        print_list(t(msg("plan.view.hints")), p.failure->hints);
        print_alternatives(p, verbose);
        print_error_line(Error{p.failure->code, p.failure->message});
        return;
    }
    std::string choice = p.offline ? "plan.view.choice_offline" : "plan.view.choice";
    print(t(msg(choice, {{"torch", p.torch}, {"variant", p.variant}, {"channel", p.channel}})));
    print(target_line(p));
    if (!p.target.environment.empty()) print(t(msg("plan.view.environment", {{"path", p.target.environment}})));
    if (!p.framework_index.empty()) print(t(msg("plan.view.from", {{"index", p.framework_index}})));
    print_list(t(msg("plan.view.why")), p.reasons);
    print_list(t(msg("plan.view.warnings")), p.warnings);
    print_alternatives(p, verbose);
    if (p.offline) return;
    print_packages(p);
    if (!p.install.empty() || !p.remove.empty()) print(t(msg("plan.view.next")));
}

}  // namespace envfix::cli
