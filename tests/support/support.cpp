#include "support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>

extern char** environ;
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace envfix::test {

stdfs::path source_dir() { return ENVFIX_SOURCE_DIR; }
stdfs::path build_dir() { return ENVFIX_BUILD_DIR; }
stdfs::path envfix_binary() { return ENVFIX_BINARY; }
stdfs::path test_python() { return ENVFIX_TEST_PYTHON; }

TempDir::TempDir(const std::string& hint) {
    static std::atomic<int> n{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : hint;
    for (char& c : name)
        if (c == '/' || c == ' ') c = '_';
    path_ = build_dir() / "tmp" / (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    stdfs::remove_all(path_);
    stdfs::create_directories(path_);
}

TempDir::~TempDir() {
    if (std::getenv("ENVFIX_KEEP_TEST_DIRS")) return;
    std::error_code ec;
    // Make read-only test folders removable again.
    for (auto it = stdfs::recursive_directory_iterator(path_, ec); !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory(ec)) stdfs::permissions(it->path(), stdfs::perms::owner_all, stdfs::perm_options::add, ec);
    }
    stdfs::permissions(path_, stdfs::perms::owner_all, stdfs::perm_options::add, ec);
    stdfs::remove_all(path_, ec);
}

nlohmann::ordered_json RunResult::json() const {
    try {
        return nlohmann::ordered_json::parse(out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not JSON: " << e.what() << "\nstdout:\n" << out << "\nstderr:\n" << err;
        return {};
    }
}

namespace {
const std::vector<std::string> kScrubbed = {
    "VIRTUAL_ENV", "CONDA_PREFIX", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL",
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
    "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NETRC",
    "CUDA_VISIBLE_DEVICES", "LANG", "LC_ALL", "LC_MESSAGES", "PYTHONPATH", "PYTHONHOME"};

std::vector<std::string> envfix_vars_in_environment() {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) {
        std::string kv(*e);
        if (kv.rfind("ENVFIX_", 0) == 0 && kv.rfind("ENVFIX_KEEP_TEST_DIRS", 0) != 0) out.push_back(kv.substr(0, kv.find('=')));
    }
    return out;
}

RunResult run_isolated(const std::vector<std::string>& argv, EnvList env, int timeout_s,
                       const std::optional<stdfs::path>& cwd) {
    ProcessSpec spec;
    spec.argv = argv;
    spec.unset_env = kScrubbed;
    for (auto& v : envfix_vars_in_environment()) spec.unset_env.push_back(v);
    // Ready trees made before envfix exits (a test's own value comes later and wins): no envfix
    // left running in the background once the test has removed its folders.
    spec.set_env = {{"ENVFIX_READY_TREES", "wait"}};
    spec.set_env.insert(spec.set_env.end(), env.begin(), env.end());
    spec.timeout = std::chrono::seconds(timeout_s);
    spec.cwd = cwd;
    auto r = run_process(spec);
    RunResult out;
    if (!r) {
        ADD_FAILURE() << "cannot start " << argv[0];
        return out;
    }
    if (r->timed_out) ADD_FAILURE() << argv[0] << " timed out after " << timeout_s << " s";
    out.code = r->exited ? r->exit_code : 128 + r->signal;
    out.out = std::move(r->out);
    out.err = std::move(r->err);
    return out;
}
}  // namespace

RunResult run_envfix(const std::vector<std::string>& args, const EnvList& env, const std::optional<stdfs::path>& home,
                     int timeout_s) {
    std::vector<std::string> argv{envfix_binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    EnvList full;
    if (home) {
        full.push_back({"HOME", home->string()});
        full.push_back({"ENVFIX_CACHE_DIR", (*home / ".cache/envfix").string()});
        full.push_back({"ENVFIX_CONFIG_DIR", (*home / ".config/envfix").string()});
        full.push_back({"ENVFIX_DATA_DIR", (*home / ".local/share/envfix").string()});
    }
    full.insert(full.end(), env.begin(), env.end());
    return run_isolated(argv, std::move(full), timeout_s, std::nullopt);
}

RunResult run_program(const std::vector<std::string>& argv, const EnvList& env, int timeout_s,
                      const std::optional<stdfs::path>& cwd) {
    return run_isolated(argv, env, timeout_s, cwd);
}

stdfs::path make_venv(const stdfs::path& dir, bool without_pip, const stdfs::path& python) {
    std::vector<std::string> argv{python.string(), "-m", "venv"};
    if (without_pip) argv.push_back("--without-pip");
    argv.push_back(dir.string());
    auto r = run_program(argv, {}, 300);
    EXPECT_EQ(r.code, 0) << "venv creation failed: " << r.err;
    return dir / "bin" / "python";
}

stdfs::path build_wheel(const nlohmann::ordered_json& spec, const stdfs::path& out_dir) {
    stdfs::create_directories(out_dir);
    auto spec_file = out_dir / (".spec-" + std::to_string(std::hash<std::string>{}(spec.dump())) + ".json");
    write_text(spec_file, spec.dump());
    auto r = run_program({test_python().string(), (source_dir() / "tests/tools/mkwheel.py").string(), spec_file.string(),
                          out_dir.string()});
    EXPECT_EQ(r.code, 0) << "mkwheel failed: " << r.err;
    std::string path = r.out;
    while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
    return path;
}

void write_text(const stdfs::path& p, const std::string& text) {
    if (p.has_parent_path()) stdfs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << text;
}

void write_texts(const stdfs::path& base, const std::vector<std::pair<std::string, std::string>>& files) {
    for (const auto& [rel, text] : files) write_text(base / rel, text);
}

std::string read_text(const stdfs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {
void put_env(const std::string& name, const std::optional<std::string>& value) {
    if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
    else
        ::unsetenv(name.c_str());
}
}  // namespace

void EnvChanges::set(const std::string& name, const std::optional<std::string>& value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    put_env(name, value);
}

EnvChanges::~EnvChanges() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) put_env(it->first, it->second);
}

}  // namespace envfix::test
