// The apply spec (YAML): read strictly, every problem one line naming the file and the line.
#include "envfix/installer/apply_spec.hpp"

#include <yaml-cpp/yaml.h>

#include <set>

#include "envfix/plan/torch_filter.hpp"

namespace envfix::installer {

namespace {

namespace stdfs = std::filesystem;

// Thrown inside the parser only; parse_apply_spec() turns it into the Error.
struct SpecError {
    int line;
    std::string reason;
};

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

[[noreturn]] void bad(const YAML::Node& n, const Message& reason) { throw SpecError{line_of(n), render(reason)}; }

void check_keys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& where) {
    if (!map.IsMap()) bad(map, msg("apply.spec.not_mapping", {{"where", where}}));
    for (const auto& kv : map) {
        auto key = kv.first.as<std::string>();
        if (!allowed.count(key)) bad(kv.first, msg("apply.spec.unknown_key", {{"key", key}, {"where", where}}));
    }
}

std::string text(const YAML::Node& n, const std::string& key) {
    if (!n.IsScalar() || n.Tag() == "tag:yaml.org,2002:null" || n.Scalar().empty()) bad(n, msg("apply.spec.not_string", {{"key", key}}));
    return n.Scalar();
}

bool flag(const YAML::Node& n, const std::string& key) {
    if (!n.IsScalar()) bad(n, msg("apply.spec.not_bool", {{"key", key}}));
    const std::string& s = n.Scalar();
    if (s == "true" || s == "True" || s == "yes") return true;
    if (s == "false" || s == "False" || s == "no") return false;
    bad(n, msg("apply.spec.not_bool", {{"key", key}}));
}

std::string one_of(const YAML::Node& n, const std::string& key, const std::set<std::string>& values) {
    std::string s = text(n, key);
    if (!values.count(s)) {
        std::string list;
        for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
        bad(n, msg("apply.spec.not_one_of", {{"key", key}, {"value", s}, {"list", list}}));
    }
    return s;
}

stdfs::path path_at(const YAML::Node& n, const std::string& key, const stdfs::path& base) {
    stdfs::path p(text(n, key));
    return p.is_absolute() ? p.lexically_normal() : (base / p).lexically_normal();
}

// A local folder or file, or an http(s)/file URL kept as written.
std::string place(const YAML::Node& n, const std::string& key, const stdfs::path& base) {
    std::string s = text(n, key);
    if (s.starts_with("http://") || s.starts_with("https://") || s.starts_with("file://")) return s;
    return path_at(n, key, base).string();
}

const std::set<std::string> kPolicyKeys = {"channel", "variant", "torch", "torch-from", "verify"};

void read_policy_key(const std::string& key, const YAML::Node& v, ApplyPolicy& p) {
    if (key == "channel") {
        p.channel = one_of(v, key, {"auto", "stable", "nightly"});
        p.channel_line = line_of(v);
    }
    if (key == "variant") {
        p.variant = text(v, key);
        p.variant_line = line_of(v);
    }
    if (key == "torch") {
        p.torch = text(v, key);
        p.torch_line = line_of(v);
        if (auto f = plan::parse_torch_filter(*p.torch); !f)
            bad(v, msg("apply.spec.torch_invalid", {{"value", *p.torch}, {"reason", render(f.error().message)}}));
    }
    if (key == "torch-from") p.torch_from = one_of(v, key, {"pytorch", "index"});
    if (key == "verify") p.verify = flag(v, key);
}

void inherit(ApplyPolicy& p, const ApplyPolicy& from) {
    if (!p.channel) {
        p.channel = from.channel;
        p.channel_line = from.channel_line;
    }
    if (!p.variant) {
        p.variant = from.variant;
        p.variant_line = from.variant_line;
    }
    if (!p.torch) {
        p.torch = from.torch;
        p.torch_line = from.torch_line;
    }
    if (!p.torch_from) p.torch_from = from.torch_from;
    if (!p.verify) p.verify = from.verify;
}

ApplyEnvironment read_environment(const YAML::Node& n, size_t i, const stdfs::path& base) {
    std::string where = "environments[" + std::to_string(i) + "]";
    std::set<std::string> keys = {"name", "venv", "base-python", "app", "path", "python", "lock"};
    keys.insert(kPolicyKeys.begin(), kPolicyKeys.end());
    check_keys(n, keys, where);
    ApplyEnvironment e;
    e.line = line_of(n);
    for (const auto& kv : n) {
        auto key = kv.first.as<std::string>();
        const YAML::Node& v = kv.second;
        if (key == "name") e.name = text(v, key);
        if (key == "venv") e.venv = path_at(v, key, base);
        if (key == "base-python") {
            // A name on PATH ("python3.12") stays a name; a path is made absolute.
            std::string s = text(v, key);
            e.base_python = s.find('/') == std::string::npos && s.find('\\') == std::string::npos ? stdfs::path(s) : path_at(v, key, base);
        }
        if (key == "app") e.app = text(v, key);
        if (key == "path") e.path = path_at(v, key, base);
        if (key == "python") e.python = text(v, key);
        if (key == "lock") e.lock = path_at(v, key, base);
        read_policy_key(key, v, e.policy);
    }
    int targets = (e.venv ? 1 : 0) + ((e.app || e.path) ? 1 : 0) + (e.python ? 1 : 0);
    if (targets == 0) bad(n, msg("apply.spec.no_target", {{"where", where}}));
    if (targets > 1) bad(n, msg("apply.spec.two_targets", {{"where", where}}));
    if (e.base_python && !e.venv) bad(n, msg("apply.spec.base_python_alone", {{"where", where}}));
    if (e.lock && (e.policy.channel || e.policy.variant || e.policy.torch || e.policy.torch_from))
        bad(n, msg("apply.spec.lock_and_policy", {{"where", where}}));
    if (e.name.empty()) {
        if (e.venv) e.name = e.venv->string();
        else if (e.path) e.name = e.path->string();
        else if (e.app) e.name = *e.app;
        else e.name = *e.python;
    }
    return e;
}

ApplySpec read_spec(const YAML::Node& root, const stdfs::path& source, const stdfs::path& base) {
    if (!root.IsMap()) bad(root, msg("apply.spec.not_mapping", {{"where", render(msg("apply.spec.the_spec"))}}));
    check_keys(root, {"version", "index", "cache-dir", "wheels", "wheels-layout", "policy", "environments"},
               render(msg("apply.spec.the_spec")));
    ApplySpec s;
    s.file = source;
    ApplyPolicy defaults;
    for (const auto& kv : root) {
        auto key = kv.first.as<std::string>();
        const YAML::Node& v = kv.second;
        if (key == "index") {
            check_keys(v, {"pytorch-index", "index-url", "extra-index-urls", "cert", "offline"}, "index");
            for (const auto& ikv : v) {
                auto ik = ikv.first.as<std::string>();
                const YAML::Node& iv = ikv.second;
                if (ik == "pytorch-index") s.index.pytorch_index = text(iv, ik);
                if (ik == "index-url") s.index.index_url = text(iv, ik);
                if (ik == "cert") s.index.cert = path_at(iv, ik, base).string();
                if (ik == "offline") s.index.offline = flag(iv, ik);
                if (ik == "extra-index-urls") {
                    if (!iv.IsSequence()) bad(iv, msg("apply.spec.not_list", {{"key", "extra-index-urls"}}));
                    for (const auto& u : iv) s.index.extra_index_urls.push_back(text(u, ik));
                }
            }
        }
        if (key == "cache-dir") s.cache_dir = path_at(v, key, base);
        if (key == "wheels") s.wheels = place(v, key, base);
        if (key == "wheels-layout") s.wheels_layout = one_of(v, key, {"auto", "flat", "pep503"});
        if (key == "policy") {
            check_keys(v, kPolicyKeys, "policy");
            for (const auto& pkv : v) read_policy_key(pkv.first.as<std::string>(), pkv.second, defaults);
        }
        if (key == "environments") {
            if (!v.IsSequence()) bad(v, msg("apply.spec.not_list", {{"key", "environments"}}));
            for (size_t i = 0; i < v.size(); ++i) s.environments.push_back(read_environment(v[i], i, base));
        }
    }
    if (s.environments.empty()) bad(root, msg("apply.spec.no_environments"));
    std::set<std::string> names;
    for (auto& e : s.environments) {
        inherit(e.policy, defaults);
        if (!names.insert(e.name).second) throw SpecError{e.line, render(msg("apply.spec.same_name", {{"name", e.name}}))};
    }
    return s;
}

}  // namespace

Expected<ApplySpec> parse_apply_spec(std::string_view text, const std::filesystem::path& source, const std::filesystem::path& base_dir) {
    auto invalid = [&](int line, const std::string& reason) {
        return fail(ExitCode::BadInput, "apply.spec_invalid",
                    {{"file", source.string()}, {"line", std::to_string(line)}, {"reason", reason}});
    };
    YAML::Node root;
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
        return invalid(e.mark.line + 1, render(msg("apply.spec.yaml", {{"what", e.msg}})));
    }
    if (!root.IsMap() || !root["version"])
        return fail(ExitCode::BadInput, "apply.spec_version",
                    {{"file", source.string()}, {"found", "none"}, {"supported", std::to_string(kApplySpecVersion)}});
    const YAML::Node v = root["version"];
    if (!v.IsScalar() || v.Scalar() != std::to_string(kApplySpecVersion))
        return fail(ExitCode::BadInput, "apply.spec_version",
                    {{"file", source.string()}, {"found", v.IsScalar() ? v.Scalar() : "?"}, {"supported", std::to_string(kApplySpecVersion)}});
    try {
        return read_spec(root, source, base_dir);
    } catch (const SpecError& e) {
        return invalid(e.line, e.reason);
    } catch (const YAML::Exception& e) {
        return invalid(e.mark.line + 1, e.msg);
    }
}

}  // namespace envfix::installer
