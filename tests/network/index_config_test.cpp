// The configuration: the file's format and errors (pure), then precedence, sources and
// redaction through the built binary (`envfix config show`).
#include <gtest/gtest.h>

#include "envfix/common/message.hpp"
#include "envfix/network/index_config.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::network;

TEST(ConfigFile, ReadsEveryKey) {
    auto cf = parse_config_file(R"(version: 1
pytorch:
  index: sjtug
  mirrors:
    - nju
    - https://mirror.example/whl
index:
  url: https://pypi.corp.example/simple
  extra-urls: https://extra.example/simple
cache:
  enabled: false
  dir: /var/cache/envfix-http
network:
  timeout: 60
  connect-timeout: 5
  retries: 0
  parallel-downloads: 8
  cert: /etc/ssl/corp.pem
  offline: yes
)",
                                "/c/config.yaml");
    ASSERT_TRUE(cf) << render(cf.error().message, Lang::En);
    EXPECT_EQ(cf->pytorch_index->value, "sjtug");
    EXPECT_EQ(cf->pytorch_index->line, 3);
    EXPECT_EQ(cf->pytorch_mirrors->value.size(), 2u);
    EXPECT_EQ(cf->index_url->value, "https://pypi.corp.example/simple");
    EXPECT_EQ(cf->extra_index_urls->value, std::vector<std::string>{"https://extra.example/simple"});
    EXPECT_FALSE(cf->cache_enabled->value);
    EXPECT_EQ(cf->timeout_s->value, 60);
    EXPECT_EQ(cf->retries->value, 0);
    EXPECT_EQ(cf->parallel_downloads->value, 8);
    EXPECT_TRUE(cf->offline->value);
    EXPECT_EQ(cf->offline->line, 19);
}

TEST(ConfigFile, EmptyFileSetsNothing) {
    auto cf = parse_config_file("", "/c/config.yaml");
    ASSERT_TRUE(cf);
    EXPECT_FALSE(cf->index_url);
}

TEST(ConfigFile, ErrorsNameFileLineAndProblem) {
    struct Case {
        const char* text;
        const char* key;
        int line;
    } cases[] = {
        {"version: 1\npytorch:\n  index: [unclosed\n", "config.syntax", 4},
        {"version: 1\nindx:\n  url: https://x/\n", "config.unknown_key", 2},
        {"version: 1\nindex:\n  url: https://x/\n  extra: []\n", "config.unknown_key", 4},
        {"pytorch:\n  index: sjtug\n", "config.version_missing", 1},
        {"version: 2\n", "config.version_newer", 1},
        {"version: one\n", "config.want_int", 1},
        {"version: 1\nnetwork:\n  retries: -1\n", "config.want_int", 3},
        {"version: 1\nnetwork:\n  offline: maybe\n", "config.want_bool", 3},
        {"version: 1\nindex:\n  url: [a, b]\n", "config.want_string", 3},
        {"version: 1\nindex:\n  url: ftp://x/simple\n", "config.not_url", 3},
        {"version: 1\npytorch:\n  mirrors:\n    - {a: 1}\n", "config.want_list", 4},
        {"version: 1\ncache: true\n", "config.want_map", 2},
        {"- just\n- a list\n", "config.want_map", 1},
    };
    for (auto c : cases) {
        auto cf = parse_config_file(c.text, "/home/u/.config/envfix/config.yaml");
        ASSERT_FALSE(cf) << c.text;
        EXPECT_EQ(cf.error().code, ExitCode::ConfigInvalid);
        EXPECT_EQ(cf.error().message.key, c.key) << c.text;
        EXPECT_EQ(cf.error().message.arg("line"), std::to_string(c.line)) << c.text;
        auto text = render(cf.error().message, Lang::En);
        EXPECT_EQ(text.rfind("/home/u/.config/envfix/config.yaml:" + std::to_string(c.line) + ": ", 0), 0u) << text;
        EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    }
}

namespace {

using envfix::test::TempDir;

nlohmann::ordered_json setting(const nlohmann::ordered_json& doc, const std::string& key) {
    for (const auto& s : doc["settings"])
        if (s["key"] == key) return s;
    ADD_FAILURE() << "no setting " << key;
    return {};
}

}  // namespace

TEST(ConfigShow, DefaultsWithoutAnything) {
    TempDir home;
    auto r = test::run_envfix({"--json", "config", "show"}, {}, home.path());
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["config_file"]["exists"], false);
    EXPECT_EQ(setting(j, "index.url")["value"], "https://pypi.org/simple");
    EXPECT_EQ(setting(j, "index.url")["source"], "default");
    EXPECT_EQ(setting(j, "pytorch.index")["value"], "https://download.pytorch.org/whl");
    EXPECT_EQ(setting(j, "network.offline")["value"], false);
    EXPECT_EQ(setting(j, "cache.dir")["value"], (home.path() / ".cache/envfix/http").string());
}

TEST(ConfigShow, CommandLineBeatsEnvironmentBeatsFile) {
    TempDir home;
    test::write_text(home / ".config/envfix/config.yaml",
                     "version: 1\nindex:\n  url: https://file.example/simple\n  extra-urls: [https://file-extra.example/simple]\n"
                     "pytorch:\n  index: nju\n  mirrors: [sjtug]\nnetwork:\n  retries: 5\n  timeout: 99\n");
    auto cfg = (home / ".config/envfix/config.yaml").string();
    // file only
    auto r = test::run_envfix({"--json", "config", "show"}, {}, home.path());
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["config_file"]["exists"], true);
    EXPECT_EQ(setting(j, "index.url")["value"], "https://file.example/simple");
    EXPECT_EQ(setting(j, "index.url")["origin"], cfg + ":3");
    EXPECT_EQ(setting(j, "pytorch.index")["value"], "https://mirrors.nju.edu.cn/pytorch/whl");
    EXPECT_EQ(setting(j, "pytorch.mirrors")["value"][0], "https://mirror.sjtu.edu.cn/pytorch-wheels");
    EXPECT_EQ(setting(j, "network.retries")["value"], 5);
    EXPECT_EQ(setting(j, "network.retries")["source"], "config-file");
    // environment over the file
    test::EnvList env = {{"PIP_INDEX_URL", "https://pip.example/simple"},
                         {"UV_INDEX_URL", "https://uv.example/simple"},
                         {"PIP_EXTRA_INDEX_URL", "https://e1.example/simple  https://e2.example/simple"},
                         {"UV_EXTRA_INDEX_URL", "https://e2.example/simple https://e3.example/simple"},
                         {"ENVFIX_INDEX_URL", "https://torch-mirror.example/whl"},
                         {"SSL_CERT_FILE", "/etc/ssl/corp.pem"},
                         {"https_proxy", "http://proxy.example:3128"},
                         {"NO_PROXY", "localhost,.corp.example"}};
    r = test::run_envfix({"--json", "config", "show"}, env, home.path());
    ASSERT_EQ(r.code, 0) << r.err;
    j = r.json();
    EXPECT_EQ(setting(j, "index.url")["value"], "https://pip.example/simple");
    EXPECT_EQ(setting(j, "index.url")["origin"], "PIP_INDEX_URL");
    EXPECT_EQ(setting(j, "index.extra-urls")["value"],
              nlohmann::ordered_json::array({"https://e1.example/simple", "https://e2.example/simple", "https://e3.example/simple"}));
    EXPECT_EQ(setting(j, "index.extra-urls")["origin"], "PIP_EXTRA_INDEX_URL + UV_EXTRA_INDEX_URL");
    EXPECT_EQ(setting(j, "pytorch.index")["value"], "https://torch-mirror.example/whl");
    EXPECT_EQ(setting(j, "pytorch.index")["origin"], "ENVFIX_INDEX_URL");
    EXPECT_EQ(setting(j, "network.cert")["value"], "/etc/ssl/corp.pem");
    EXPECT_EQ(setting(j, "network.https-proxy")["value"], "http://proxy.example:3128");
    EXPECT_EQ(setting(j, "network.no-proxy")["value"], "localhost,.corp.example");
    EXPECT_EQ(setting(j, "network.timeout")["value"], 99);
    // command line over both
    r = test::run_envfix({"--json", "config", "show", "--index-url", "https://cli.example/simple", "--extra-index-url",
                          "https://cli-extra.example/simple", "--pytorch-index", "sjtug", "--offline", "--cert", "/tmp/ca.pem"},
                         env, home.path());
    ASSERT_EQ(r.code, 0) << r.err;
    j = r.json();
    EXPECT_EQ(setting(j, "index.url")["value"], "https://cli.example/simple");
    EXPECT_EQ(setting(j, "index.url")["source"], "command-line");
    EXPECT_EQ(setting(j, "index.extra-urls")["value"], nlohmann::ordered_json::array({"https://cli-extra.example/simple"}));
    EXPECT_EQ(setting(j, "pytorch.index")["value"], "https://mirror.sjtu.edu.cn/pytorch-wheels");
    EXPECT_EQ(setting(j, "network.offline")["value"], true);
    EXPECT_EQ(setting(j, "network.cert")["origin"], "--cert");
    // the table names each source
    r = test::run_envfix({"config", "show", "--offline"}, env, home.path());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("environment PIP_INDEX_URL"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("command line --offline"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("config file " + cfg + ":10"), std::string::npos) << r.out;
}

TEST(ConfigShow, CredentialsNeverAppear) {
    TempDir home;
    const std::string secret = "Pa55w0rd-never-printed";
    test::write_text(home / ".config/envfix/config.yaml",
                     "version: 1\nindex:\n  extra-urls: [https://bob:" + secret + "@file.example/simple]\n");
    test::EnvList env = {{"PIP_INDEX_URL", "https://alice:" + secret + "@corp.example/simple"},
                         {"HTTPS_PROXY", "http://proxyuser:" + secret + "@proxy.example:3128"}};
    for (auto args : {std::vector<std::string>{"--json", "config", "show"}, std::vector<std::string>{"config", "show"},
                      std::vector<std::string>{"config", "show", "--index-url", "https://carol:" + secret + "@cli.example/"},
                      std::vector<std::string>{"config", "show", "--index-url", "ftp://carol:" + secret + "@cli.example/"}}) {
        auto r = test::run_envfix(args, env, home.path());
        EXPECT_EQ(r.out.find(secret), std::string::npos) << r.out;
        EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
    }
    auto r = test::run_envfix({"--json", "config", "show"}, env, home.path());
    auto j = r.json();
    EXPECT_EQ(setting(j, "index.url")["value"], "https://***@corp.example/simple");
    EXPECT_EQ(setting(j, "network.https-proxy")["value"], "http://***@proxy.example:3128");
}

TEST(ConfigShow, BadInputHasItsExitCode) {
    TempDir home;
    test::write_text(home / ".config/envfix/config.yaml", "version: 1\nnetwork:\n  retrys: 3\n");
    auto r = test::run_envfix({"config", "show"}, {}, home.path());
    EXPECT_EQ(r.code, 42);
    EXPECT_NE(r.err.find("config.yaml:3: unknown setting network.retrys"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    auto j = test::run_envfix({"--json", "config", "show"}, {}, home.path()).json();
    EXPECT_EQ(j["error"]["name"], "config-invalid");

    TempDir home2;
    r = test::run_envfix({"config", "show", "--index-url", "not a url"}, {}, home2.path());
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--index-url is not an http(s) URL"), std::string::npos) << r.err;
    r = test::run_envfix({"config", "show"}, {{"PIP_INDEX_URL", "pypi.corp.example/simple"}}, home2.path());
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("PIP_INDEX_URL is not an http(s) URL"), std::string::npos) << r.err;
}

TEST(ConfigShow, SpeaksChinese) {
    TempDir home;
    auto r = test::run_envfix({"--lang", "zh", "config", "show"}, {}, home.path());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("配置文件"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("默认值"), std::string::npos) << r.out;
}
