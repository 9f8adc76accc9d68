#pragma once
// Where packages come from, the way users already say it: command-line options, pip's and
// uv's environment variables, ENVFIX_INDEX_URL, and envfix's config file
// ($XDG_CONFIG_HOME/envfix/config.yaml). Precedence: command line > environment > config
// file > defaults. Every value remembers where it came from (`envfix config show`).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/network/http_client.hpp"
#include "envfix/network/index_client.hpp"

namespace envfix::network {

inline constexpr int kConfigFileVersion = 1;

enum class ConfigSource { Default, ConfigFile, Environment, CommandLine };
std::string_view config_source_name(ConfigSource s);  // "default", "config-file", "environment", "command-line"

template <class T>
struct Setting {
    T value{};
    ConfigSource source = ConfigSource::Default;
    std::string origin;  // "--index-url", "PIP_INDEX_URL", "/home/u/.config/envfix/config.yaml:4", ""

    void set(T v, ConfigSource s, std::string o) {
        value = std::move(v);
        source = s;
        origin = std::move(o);
    }
};

// What the command line said (cli/src/index_options.hpp fills it).
struct IndexCliOptions {
    std::optional<std::string> index_url;
    std::vector<std::string> extra_index_urls;
    std::optional<std::string> pytorch_index;  // URL or mirror name
    bool offline = false;
    bool refresh = false;
    std::optional<std::string> cert;
};

// The config file's content; absent keys stay nullopt. Line numbers are kept for `origin`.
struct ConfigFile {
    std::filesystem::path path;
    bool exists = false;
    template <class T>
    struct Entry {
        T value{};
        int line = 0;
    };
    std::optional<Entry<std::string>> pytorch_index;
    std::optional<Entry<std::vector<std::string>>> pytorch_mirrors;
    std::optional<Entry<std::string>> index_url;
    std::optional<Entry<std::vector<std::string>>> extra_index_urls;
    std::optional<Entry<bool>> cache_enabled;
    std::optional<Entry<std::string>> cache_dir;
    std::optional<Entry<int>> timeout_s;
    std::optional<Entry<int>> connect_timeout_s;
    std::optional<Entry<int>> retries;
    std::optional<Entry<int>> parallel_downloads;
    std::optional<Entry<std::string>> cert;
    std::optional<Entry<bool>> offline;
};

// Pure: parses config.yaml text. Errors: ExitCode::ConfigInvalid naming `path`, the line and
// the problem (syntax, unknown key, wrong type, missing or newer `version`).
Expected<ConfigFile> parse_config_file(std::string_view text, const std::filesystem::path& path);
// Reads fs::config_dir()/config.yaml; a missing file is an empty ConfigFile.
std::filesystem::path config_file_path();
Expected<ConfigFile> load_config_file();

struct IndexConfig {
    std::filesystem::path config_path;
    bool config_exists = false;
    Setting<std::string> index_url;  // PyPI-style index for everything else
    Setting<std::vector<std::string>> extra_index_urls;
    Setting<std::string> pytorch_index;  // PyTorch index root (or a mirror's)
    Setting<std::vector<std::string>> pytorch_mirrors;  // tried in order after the root
    Setting<bool> offline;
    Setting<bool> refresh;  // --refresh: cached pages asked again, fresh or not
    Setting<std::string> cert;  // "" = system CA store
    Setting<bool> cache_enabled;
    Setting<std::string> cache_dir;  // HTTP cache folder
    Setting<int> timeout_s;
    Setting<int> connect_timeout_s;
    Setting<int> retries;
    Setting<int> parallel_downloads;
    Setting<std::string> netrc;  // the netrc file in use ("" = none)
    Setting<std::string> http_proxy;
    Setting<std::string> https_proxy;
    Setting<std::string> all_proxy;
    Setting<std::string> no_proxy;

    // The index URLs of the PyTorch variant, root first, then the mirrors.
    std::vector<std::string> pytorch_index_urls(IndexChannel channel, std::string_view variant) const;
    // HttpOptions for the HTTP client and the downloader (netrc loaded here).
    HttpOptions http_options() const;
};

// Combines defaults, the config file, the environment and the command line. A URL that is
// not http(s) or file is refused: Usage (command line), BadInput (environment).
Expected<IndexConfig> combine_index_config(const IndexCliOptions& cli, const ConfigFile& file);
// load_config_file() + combine_index_config(); ConfigInvalid when the file is bad.
Expected<IndexConfig> load_index_config(const IndexCliOptions& cli);

}  // namespace envfix::network
