// The plan file: serialize_plan / parse_plan (docs/plan.md "The plan file").
#include <nlohmann/json.hpp>

#include "envfix/plan/plan.hpp"

namespace envfix::plan {

namespace {

using Json = nlohmann::ordered_json;
using Render = std::function<std::string(const Message&)>;

constexpr std::pair<MetadataSource, std::string_view> kSources[] = {
    {MetadataSource::Pep658, "pep658"}, {MetadataSource::Range, "range"},         {MetadataSource::Wheel, "wheel"},
    {MetadataSource::Cache, "cache"},   {MetadataSource::Installed, "installed"},
};

Json message_json(const Message& m, const Render& render) {
    Json args = Json::object();
    for (const auto& [k, v] : m.args) args[k] = v;
    Json j{{"key", m.key}, {"args", args}};
    if (render) j["message"] = render(m);
    return j;
}

Json messages_json(const std::vector<Message>& list, const Render& render) {
    Json a = Json::array();
    for (const auto& m : list) a.push_back(message_json(m, render));
    return a;
}

Json opt(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

// Reading: every accessor names the field in its error.
struct Reader {
    std::string_view source;
    std::string error;

    const Json* field(const Json& o, const char* name, Json::value_t type, bool nullable = false) {
        if (!error.empty()) return nullptr;
        auto it = o.find(name);
        if (it == o.end() || (it->is_null() && nullable)) {
            if (!nullable) error = std::string("field ") + name + " is missing";
            return nullptr;
        }
        bool ok = it->type() == type || (type == Json::value_t::number_unsigned && it->is_number_integer() && *it >= 0);
        if (!ok) {
            error = std::string("field ") + name + " has the wrong type";
            return nullptr;
        }
        return &*it;
    }
    std::string text(const Json& o, const char* name, bool nullable = false) {
        auto* j = field(o, name, Json::value_t::string, nullable);
        return j ? j->get<std::string>() : "";
    }
    bool flag(const Json& o, const char* name) {
        auto* j = field(o, name, Json::value_t::boolean);
        return j && j->get<bool>();
    }
    std::vector<std::string> texts(const Json& o, const char* name) {
        std::vector<std::string> out;
        if (auto* j = field(o, name, Json::value_t::array))
            for (const auto& x : *j) {
                if (!x.is_string()) {
                    error = std::string("field ") + name + " must hold texts";
                    break;
                }
                out.push_back(x.get<std::string>());
            }
        return out;
    }
    Message message(const Json& j) {
        Message m;
        if (!j.is_object()) {
            error = "a message is not an object";
            return m;
        }
        m.key = text(j, "key");
        if (auto* a = field(j, "args", Json::value_t::object))
            for (const auto& [k, v] : a->items()) m.args.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
        return m;
    }
    std::vector<Message> messages(const Json& o, const char* name) {
        std::vector<Message> out;
        if (auto* j = field(o, name, Json::value_t::array))
            for (const auto& x : *j) out.push_back(message(x));
        return out;
    }
    template <class F>
    void each(const Json& o, const char* name, F f) {
        if (auto* j = field(o, name, Json::value_t::array))
            for (const auto& x : *j) {
                if (!x.is_object()) {
                    error = std::string("field ") + name + " must hold objects";
                    return;
                }
                f(x);
            }
    }
};

}  // namespace

std::string_view metadata_source_name(MetadataSource s) {
    for (const auto& [k, v] : kSources)
        if (k == s) return v;
    return "pep658";
}

std::optional<MetadataSource> parse_metadata_source(std::string_view s) {
    for (const auto& [k, v] : kSources)
        if (v == s) return k;
    return std::nullopt;
}

std::string serialize_plan(const Plan& p, const Render& render) {
    Json j;
    j["version"] = p.format_version;
    j["offline"] = p.offline;
    j["torch"] = opt(p.torch);
    j["release"] = opt(p.release);
    j["channel"] = opt(p.channel);
    j["variant"] = opt(p.variant);
    j["cuda"] = opt(p.cuda);
    j["driver_needed"] = opt(p.driver_needed);
    j["framework_index"] = opt(p.framework_index);
    const auto& t = p.target;
    j["target"] = {{"this_machine", t.this_machine},
                   {"python", opt(t.python)},
                   {"interpreter", opt(t.interpreter)},
                   {"environment", opt(t.environment)},
                   {"platform", t.platform},
                   {"best_tag", opt(t.best_tag)},
                   {"gpus", t.gpus},
                   {"driver", opt(t.driver)}};
    j["reasons"] = messages_json(p.reasons, render);
    j["warnings"] = messages_json(p.warnings, render);
    Json alts = Json::array();
    for (const auto& a : p.alternatives)
        alts.push_back(
            {{"torch", a.torch}, {"variant", a.variant}, {"channel", a.channel}, {"fits", a.fits}, {"why", messages_json(a.why, render)}});
    j["alternatives"] = alts;
    Json pkgs = Json::array();
    for (const auto& w : p.install) {
        Json r{{"name", w.name},
               {"canonical_name", w.canonical_name},
               {"version", w.version},
               {"filename", w.filename},
               {"url", w.url},
               {"sha256", opt(w.sha256)},
               {"size", w.size ? Json(*w.size) : Json(nullptr)},
               {"index", w.index},
               {"requires_python", opt(w.requires_python)},
               {"metadata", std::string(metadata_source_name(w.metadata))},
               {"framework", w.framework},
               {"required_by", w.required_by}};
        r["replaces"] = w.replaces ? Json{{"version", w.replaces->version}, {"dist_info", w.replaces->dist_info}} : Json(nullptr);
        pkgs.push_back(std::move(r));
    }
    j["packages"] = pkgs;
    Json keep = Json::array();
    for (const auto& k : p.keep)
        keep.push_back({{"name", k.name}, {"canonical_name", k.canonical_name}, {"version", k.version}, {"required_by", k.required_by}});
    j["keep"] = keep;
    Json rm = Json::array();
    for (const auto& r : p.remove)
        rm.push_back({{"name", r.name},
                      {"canonical_name", r.canonical_name},
                      {"version", r.version},
                      {"dist_info", r.dist_info},
                      {"reason", message_json(r.reason, render)}});
    j["remove"] = rm;
    if (p.failure) {
        Json f{{"exit_code", static_cast<int>(p.failure->code)},
               {"name", std::string(exit_code_name(p.failure->code))},
               {"message", message_json(p.failure->message, render)},
               {"hints", messages_json(p.failure->hints, render)}};
        j["failure"] = f;
    } else {
        j["failure"] = nullptr;
    }
    return j.dump(2);
}

Expected<Plan> parse_plan(std::string_view text, std::string_view source) {
    Json j = Json::parse(text, nullptr, false);
    auto bad = [&](const std::string& why) {
        return fail(ExitCode::BadInput, "plan.file_invalid", {{"file", std::string(source)}, {"reason", why}});
    };
    if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
    auto v = j.find("version");
    if (v == j.end() || !v->is_number_integer()) return bad("it has no version");
    if (*v != kPlanFormatVersion)
        return fail(ExitCode::BadInput, "plan.file_version",
                    {{"file", std::string(source)}, {"found", v->dump()}, {"supported", std::to_string(kPlanFormatVersion)}});
    Reader rd{source, {}};
    Plan p;
    p.offline = rd.flag(j, "offline");
    p.torch = rd.text(j, "torch", true);
    p.release = rd.text(j, "release", true);
    p.channel = rd.text(j, "channel", true);
    p.variant = rd.text(j, "variant", true);
    p.cuda = rd.text(j, "cuda", true);
    p.driver_needed = rd.text(j, "driver_needed", true);
    p.framework_index = rd.text(j, "framework_index", true);
    if (auto* t = rd.field(j, "target", Json::value_t::object)) {
        p.target.this_machine = rd.flag(*t, "this_machine");
        p.target.python = rd.text(*t, "python", true);
        p.target.interpreter = rd.text(*t, "interpreter", true);
        p.target.environment = rd.text(*t, "environment", true);
        p.target.platform = rd.text(*t, "platform");
        p.target.best_tag = rd.text(*t, "best_tag", true);
        p.target.gpus = rd.texts(*t, "gpus");
        p.target.driver = rd.text(*t, "driver", true);
    }
    p.reasons = rd.messages(j, "reasons");
    p.warnings = rd.messages(j, "warnings");
    rd.each(j, "alternatives", [&](const Json& a) {
        PlanAlternative alt{rd.text(a, "torch"), rd.text(a, "variant"), rd.text(a, "channel"), rd.flag(a, "fits"), rd.messages(a, "why")};
        p.alternatives.push_back(std::move(alt));
    });
    rd.each(j, "packages", [&](const Json& x) {
        PlannedWheel w;
        w.name = rd.text(x, "name");
        w.canonical_name = rd.text(x, "canonical_name");
        w.version = rd.text(x, "version");
        w.filename = rd.text(x, "filename");
        w.url = rd.text(x, "url");
        w.sha256 = rd.text(x, "sha256", true);
        if (auto* s = rd.field(x, "size", Json::value_t::number_unsigned, true)) w.size = s->get<uint64_t>();
        w.index = rd.text(x, "index");
        w.requires_python = rd.text(x, "requires_python", true);
        auto src = parse_metadata_source(rd.text(x, "metadata"));
        if (!src && rd.error.empty()) rd.error = "field metadata has an unknown value";
        w.metadata = src.value_or(MetadataSource::Pep658);
        w.framework = rd.flag(x, "framework");
        w.required_by = rd.texts(x, "required_by");
        if (auto* r = rd.field(x, "replaces", Json::value_t::object, true))
            w.replaces = InstalledRef{rd.text(*r, "version"), rd.text(*r, "dist_info")};
        p.install.push_back(std::move(w));
    });
    rd.each(j, "keep", [&](const Json& x) {
        p.keep.push_back({rd.text(x, "name"), rd.text(x, "canonical_name"), rd.text(x, "version"), rd.texts(x, "required_by")});
    });
    rd.each(j, "remove", [&](const Json& x) {
        RemovedDist r{rd.text(x, "name"), rd.text(x, "canonical_name"), rd.text(x, "version"), rd.text(x, "dist_info"), {}};
        if (auto* m = rd.field(x, "reason", Json::value_t::object)) r.reason = rd.message(*m);
        p.remove.push_back(std::move(r));
    });
    if (auto* f = rd.field(j, "failure", Json::value_t::object, true)) {
        PlanFailure fl;
        if (auto* c = rd.field(*f, "exit_code", Json::value_t::number_unsigned)) fl.code = static_cast<ExitCode>(c->get<int>());
        if (auto* m = rd.field(*f, "message", Json::value_t::object)) fl.message = rd.message(*m);
        fl.hints = rd.messages(*f, "hints");
        p.failure = std::move(fl);
    }
    if (!rd.error.empty()) return bad(rd.error);
    return p;
}

}  // namespace envfix::plan
