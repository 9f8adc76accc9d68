#include "envfix/network/index_config.hpp"

#include <yaml-cpp/yaml.h>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network {

std::string_view config_source_name(ConfigSource s) {
    switch (s) {
        case ConfigSource::Default: return "default";
        case ConfigSource::ConfigFile: return "config-file";
        case ConfigSource::Environment: return "environment";
        case ConfigSource::CommandLine: return "command-line";
    }
    return "default";
}

namespace {

struct Ctx {
    const std::filesystem::path& path;
    Unexpected<Error> err(std::string key, int line, MessageArgs extra = {}) const {
        Error e = make_error(ExitCode::ConfigInvalid, std::move(key), extra);
        e.message.with("path", path.string()).with("line", std::to_string(line));
        return unexpected(std::move(e));
    }
};

int line_of(const YAML::Node& n) { return n.Mark().line + 1; }

bool is_index_url(std::string_view u) {
    auto s = url_scheme(u);
    return (s == "http" || s == "https" || s == "file") && u.find("://") != std::string_view::npos;
}

Expected<std::string> want_string(const Ctx& c, const YAML::Node& n, const std::string& key) {
    if (!n.IsScalar()) return c.err("config.want_string", line_of(n), {{"key", key}});
    return n.as<std::string>();
}

Expected<std::vector<std::string>> want_list(const Ctx& c, const YAML::Node& n, const std::string& key) {
    std::vector<std::string> out;
    if (n.IsScalar()) {  // one value written without brackets
        out.push_back(n.as<std::string>());
        return out;
    }
    if (!n.IsSequence()) return c.err("config.want_list", line_of(n), {{"key", key}});
    for (const auto& e : n) {
        if (!e.IsScalar()) return c.err("config.want_list", line_of(e), {{"key", key}});
        out.push_back(e.as<std::string>());
    }
    return out;
}

Expected<bool> want_bool(const Ctx& c, const YAML::Node& n, const std::string& key) {
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) return c.err("config.want_bool", line_of(n), {{"key", key}});
    return v;
}

Expected<int> want_int(const Ctx& c, const YAML::Node& n, const std::string& key, int min, int max) {
    auto v = n.IsScalar() ? str::to_int(n.Scalar()) : std::nullopt;
    if (!v || *v < min || *v > max)
        return c.err("config.want_int", line_of(n), {{"key", key}, {"min", std::to_string(min)}, {"max", std::to_string(max)}});
    return static_cast<int>(*v);
}

Expected<void> check_url(const Ctx& c, const YAML::Node& n, const std::string& key, const std::string& v, bool mirror_names) {
    if (mirror_names && expand_pytorch_root(v) != v && !is_index_url(v)) return {};
    if (!is_index_url(v)) return c.err("config.not_url", line_of(n), {{"key", key}, {"value", redact_url(v)}});
    return {};
}

// Reads root[section][key] (sections were checked to be maps) with `reader` into `slot`.
template <class T, class Reader>
Expected<void> read_key(const YAML::Node& root, const char* section, const char* key, std::optional<ConfigFile::Entry<T>>& slot,
                        Reader&& reader) {
    auto sec = root[section];
    if (!sec || !sec.IsMap()) return {};
    auto n = sec[key];
    if (!n) return {};
    ENVFIX_TRY(T v, reader(n, std::string(section) + "." + key));
    slot = ConfigFile::Entry<T>{std::move(v), line_of(n)};
    return {};
}

// Each section's keys; anything else is a typo worth an error.
const std::vector<std::pair<std::string, std::vector<std::string>>>& known_keys() {
    static const std::vector<std::pair<std::string, std::vector<std::string>>> k = {
        {"pytorch", {"index", "mirrors"}},
        {"index", {"url", "extra-urls"}},
        {"cache", {"enabled", "dir"}},
        {"network", {"timeout", "connect-timeout", "retries", "parallel-downloads", "cert", "offline"}},
    };
    return k;
}

Expected<void> check_keys(const Ctx& c, const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& prefix) {
    for (auto it = map.begin(); it != map.end(); ++it) {
        auto key = it->first.as<std::string>();
        bool ok = false;
        for (const auto& a : allowed) ok = ok || a == key;
        if (!ok) return c.err("config.unknown_key", line_of(it->first), {{"key", prefix + key}, {"known", str::join(allowed, ", ")}});
    }
    return {};
}

}  // namespace

Expected<ConfigFile> parse_config_file(std::string_view text, const std::filesystem::path& path) {
    ConfigFile cf;
    cf.path = path;
    cf.exists = true;
    Ctx c{path};
    YAML::Node root;
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
        return c.err("config.syntax", e.mark.line + 1, {{"reason", e.msg}});
    }
    if (root.IsNull()) return cf;  // an empty file sets nothing
    if (!root.IsMap()) return c.err("config.want_map", line_of(root), {{"key", "(top level)"}});
    try {
        std::vector<std::string> top = {"version"};
        for (const auto& [section, _] : known_keys()) top.push_back(section);
        ENVFIX_TRY_VOID(check_keys(c, root, top, ""));
        auto ver = root["version"];
        if (!ver) return c.err("config.version_missing", 1);
        ENVFIX_TRY(int version, want_int(c, ver, "version", 1, 1000000));
        if (version > kConfigFileVersion)
            return c.err("config.version_newer", line_of(ver),
                         {{"version", std::to_string(version)}, {"supported", std::to_string(kConfigFileVersion)}});
        for (const auto& [section, keys] : known_keys()) {
            auto s = root[section];
            if (!s || s.IsNull()) continue;
            if (!s.IsMap()) return c.err("config.want_map", line_of(s), {{"key", section}});
            ENVFIX_TRY_VOID(check_keys(c, s, keys, section + "."));
        }
        auto str_ = [&](const YAML::Node& n, const std::string& k) { return want_string(c, n, k); };
        auto bool_ = [&](const YAML::Node& n, const std::string& k) { return want_bool(c, n, k); };
        auto int_ = [&](int lo, int hi) {
            return [&c, lo, hi](const YAML::Node& n, const std::string& k) { return want_int(c, n, k, lo, hi); };
        };
        auto url_ = [&](bool names) {
            return [&c, names](const YAML::Node& n, const std::string& k) -> Expected<std::string> {
                ENVFIX_TRY(auto v, want_string(c, n, k));
                ENVFIX_TRY_VOID(check_url(c, n, k, v, names));
                return v;
            };
        };
        auto urls_ = [&](bool names) {
            return [&c, names](const YAML::Node& n, const std::string& k) -> Expected<std::vector<std::string>> {
                ENVFIX_TRY(auto v, want_list(c, n, k));
                for (const auto& u : v) ENVFIX_TRY_VOID(check_url(c, n, k, u, names));
                return v;
            };
        };
        ENVFIX_TRY_VOID(read_key(root, "pytorch", "index", cf.pytorch_index, url_(true)));
        ENVFIX_TRY_VOID(read_key(root, "pytorch", "mirrors", cf.pytorch_mirrors, urls_(true)));
        ENVFIX_TRY_VOID(read_key(root, "index", "url", cf.index_url, url_(false)));
        ENVFIX_TRY_VOID(read_key(root, "index", "extra-urls", cf.extra_index_urls, urls_(false)));
        ENVFIX_TRY_VOID(read_key(root, "cache", "enabled", cf.cache_enabled, bool_));
        ENVFIX_TRY_VOID(read_key(root, "cache", "dir", cf.cache_dir, str_));
        ENVFIX_TRY_VOID(read_key(root, "network", "timeout", cf.timeout_s, int_(1, 3600)));
        ENVFIX_TRY_VOID(read_key(root, "network", "connect-timeout", cf.connect_timeout_s, int_(1, 600)));
        ENVFIX_TRY_VOID(read_key(root, "network", "retries", cf.retries, int_(0, 20)));
        ENVFIX_TRY_VOID(read_key(root, "network", "parallel-downloads", cf.parallel_downloads, int_(1, 64)));
        ENVFIX_TRY_VOID(read_key(root, "network", "cert", cf.cert, str_));
        ENVFIX_TRY_VOID(read_key(root, "network", "offline", cf.offline, bool_));
    } catch (const YAML::Exception& e) {
        return c.err("config.syntax", e.mark.line + 1, {{"reason", e.msg}});
    }
    return cf;
}

std::filesystem::path config_file_path() { return fs::config_dir() / "config.yaml"; }

Expected<ConfigFile> load_config_file() {
    auto path = config_file_path();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        ConfigFile cf;
        cf.path = path;
        return cf;
    }
    auto text = fs::read_file(path);
    if (!text) return fail(ExitCode::ConfigInvalid, "config.unreadable", {{"path", path.string()}});
    return parse_config_file(*text, path);
}

namespace {

std::vector<std::string> split_space(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == ' ' || c == '\t' || c == '\n') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

template <class T>
void from_file(Setting<T>& s, const std::optional<ConfigFile::Entry<T>>& e, const ConfigFile& f) {
    if (e) s.set(e->value, ConfigSource::ConfigFile, f.path.string() + ":" + std::to_string(e->line));
}

void from_env(Setting<std::string>& s, EnvVar v) {
    if (auto x = env::get(v)) s.set(*x, ConfigSource::Environment, std::string(env::name(v)));
}

}  // namespace

Expected<IndexConfig> combine_index_config(const IndexCliOptions& cli, const ConfigFile& file) {
    IndexConfig c;
    c.config_path = file.path;
    c.config_exists = file.exists;
    // defaults
    c.index_url.value = std::string(kDefaultIndexUrl);
    c.pytorch_index.value = std::string(kDefaultPytorchRoot);
    c.cache_enabled.value = true;
    c.cache_dir.value = (fs::cache_dir() / "http").string();
    c.timeout_s.value = 30;
    c.connect_timeout_s.value = 15;
    c.retries.value = 3;
    c.parallel_downloads.value = 4;
    if (auto home = fs::home_dir()) {
        auto p = *home / ".netrc";
        std::error_code ec;
        if (std::filesystem::exists(p, ec)) c.netrc.value = p.string();
    }
    // config file
    from_file(c.index_url, file.index_url, file);
    from_file(c.extra_index_urls, file.extra_index_urls, file);
    from_file(c.pytorch_index, file.pytorch_index, file);
    from_file(c.pytorch_mirrors, file.pytorch_mirrors, file);
    from_file(c.offline, file.offline, file);
    from_file(c.cert, file.cert, file);
    from_file(c.cache_enabled, file.cache_enabled, file);
    from_file(c.cache_dir, file.cache_dir, file);
    from_file(c.timeout_s, file.timeout_s, file);
    from_file(c.connect_timeout_s, file.connect_timeout_s, file);
    from_file(c.retries, file.retries, file);
    from_file(c.parallel_downloads, file.parallel_downloads, file);
    // environment: pip's names first, then uv's (a user of both most often set pip's)
    from_env(c.index_url, EnvVar::UvIndexUrl);
    from_env(c.index_url, EnvVar::PipIndexUrl);
    {
        std::vector<std::string> extra;
        std::vector<std::string> names;
        for (EnvVar v : {EnvVar::PipExtraIndexUrl, EnvVar::UvExtraIndexUrl}) {
            if (auto x = env::get(v)) {
                for (auto& u : split_space(*x))
                    if (std::find(extra.begin(), extra.end(), u) == extra.end()) extra.push_back(u);
                names.emplace_back(env::name(v));
            }
        }
        if (!names.empty()) c.extra_index_urls.set(extra, ConfigSource::Environment, str::join(names, " + "));
    }
    from_env(c.pytorch_index, EnvVar::EnvfixIndexUrl);
    from_env(c.cert, EnvVar::RequestsCaBundle);
    from_env(c.cert, EnvVar::SslCertFile);
    from_env(c.netrc, EnvVar::Netrc);
    from_env(c.http_proxy, EnvVar::HttpProxy);
    from_env(c.https_proxy, EnvVar::HttpsProxy);
    from_env(c.all_proxy, EnvVar::AllProxy);
    from_env(c.no_proxy, EnvVar::NoProxy);
    for (auto* s : {&c.index_url, &c.pytorch_index}) {
        if (s->source == ConfigSource::Environment && !is_index_url(expand_pytorch_root(s->value)))
            return fail(ExitCode::BadInput, "config.env_not_url", {{"name", s->origin}, {"value", redact_url(s->value)}});
    }
    for (const auto& u : c.extra_index_urls.value)
        if (c.extra_index_urls.source == ConfigSource::Environment && !is_index_url(u))
            return fail(ExitCode::BadInput, "config.env_not_url", {{"name", c.extra_index_urls.origin}, {"value", redact_url(u)}});
    // command line
    auto cli_url = [](const std::string& u, const char* opt) -> Expected<void> {
        if (!is_index_url(u)) return fail(ExitCode::Usage, "config.option_not_url", {{"option", opt}, {"value", redact_url(u)}});
        return {};
    };
    if (cli.index_url) {
        ENVFIX_TRY_VOID(cli_url(*cli.index_url, "--index-url"));
        c.index_url.set(*cli.index_url, ConfigSource::CommandLine, "--index-url");
    }
    if (!cli.extra_index_urls.empty()) {
        for (const auto& u : cli.extra_index_urls) ENVFIX_TRY_VOID(cli_url(u, "--extra-index-url"));
        c.extra_index_urls.set(cli.extra_index_urls, ConfigSource::CommandLine, "--extra-index-url");
    }
    if (cli.pytorch_index) {
        if (expand_pytorch_root(*cli.pytorch_index) == *cli.pytorch_index) ENVFIX_TRY_VOID(cli_url(*cli.pytorch_index, "--pytorch-index"));
        c.pytorch_index.set(*cli.pytorch_index, ConfigSource::CommandLine, "--pytorch-index");
    }
    if (cli.offline) c.offline.set(true, ConfigSource::CommandLine, "--offline");
    if (cli.refresh) c.refresh.set(true, ConfigSource::CommandLine, "--refresh");
    if (cli.cert) c.cert.set(*cli.cert, ConfigSource::CommandLine, "--cert");
    c.pytorch_index.value = expand_pytorch_root(c.pytorch_index.value);
    for (auto& m : c.pytorch_mirrors.value) m = expand_pytorch_root(m);
    return c;
}

Expected<IndexConfig> load_index_config(const IndexCliOptions& cli) {
    ENVFIX_TRY(auto file, load_config_file());
    return combine_index_config(cli, file);
}

std::vector<std::string> IndexConfig::pytorch_index_urls(IndexChannel channel, std::string_view variant) const {
    std::vector<std::string> out{pytorch_index_url(pytorch_index.value, channel, variant)};
    for (const auto& m : pytorch_mirrors.value) {
        auto u = pytorch_index_url(m, channel, variant);
        if (std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
    }
    return out;
}

HttpOptions IndexConfig::http_options() const {
    HttpOptions o = HttpOptions::from_environment();
    o.ca_bundle.reset();
    if (!cert.value.empty()) o.ca_bundle = cert.value;
    o.http_proxy = http_proxy.value;
    o.https_proxy = https_proxy.value;
    o.all_proxy = all_proxy.value;
    o.no_proxy = no_proxy.value;
    o.netrc.clear();
    if (!netrc.value.empty()) {
        if (auto text = fs::read_file(netrc.value)) o.netrc = parse_netrc(*text);
    }
    o.timeout = std::chrono::seconds(timeout_s.value);
    o.connect_timeout = std::chrono::seconds(connect_timeout_s.value);
    o.retries = retries.value;
    o.offline = offline.value;
    o.refresh = refresh.value;
    o.use_cache = cache_enabled.value;
    o.cache_dir = cache_dir.value;
    return o;
}

}  // namespace envfix::network
