// Wheels nobody here wrote — the pip and setuptools wheels bundled with every interpreter on
// the machine (pyenv's ensurepip/_bundled/, Debian's python3-pip-whl) — installed by envfix and
// by pip into a fresh venv at the same path, one after the other: the trees must match byte for
// byte (INSTALLER aside; pip runs with --no-compile) and so must RECORD; then the pip envfix
// installed must run.
#include <gtest/gtest.h>

#include <regex>

#include "envfix/common/strings.hpp"
#include "envfix/standards/installed.hpp"
#include "install_fixtures.hpp"

using namespace envfix;
using namespace envfix::test;

namespace {

struct Interpreter {
    std::string label;  // "pyenv_3_11_7", "debian"
    stdfs::path python;
    int minor = 0;
    std::vector<stdfs::path> wheels;
};

// gtest prints a parameter with this (instead of its bytes).
[[maybe_unused]] void PrintTo(const Interpreter& i, std::ostream* os) { *os << i.label; }

std::vector<stdfs::path> wheels_in(const stdfs::path& dir) {
    std::vector<stdfs::path> out;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(dir, ec))
        if (e.path().extension() == ".whl") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Interpreter> interpreters() {
    std::vector<Interpreter> out;
    std::error_code ec;
    std::regex ver(R"(3\.(\d+)\.\d+)");
    for (const auto& e : stdfs::directory_iterator("/root/.pyenv/versions", ec)) {
        std::smatch m;
        std::string name = e.path().filename().string();
        if (!std::regex_match(name, m, ver)) continue;
        int minor = std::stoi(m[1]);
        auto bundled = e.path() / "lib" / ("python3." + std::to_string(minor)) / "ensurepip" / "_bundled";
        Interpreter i{"pyenv_" + std::regex_replace(name, std::regex("\\."), "_"), e.path() / "bin" / "python3", minor, wheels_in(bundled)};
        if (!i.wheels.empty() && stdfs::exists(i.python)) out.push_back(std::move(i));
    }
    if (stdfs::exists(test_python()) && stdfs::exists("/usr/share/python-wheels"))
        out.push_back({"debian", test_python(), 0, wheels_in("/usr/share/python-wheels")});
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
    return out;
}

// The newest bundled pip that runs on Python 3.minor: the reference installer.
std::optional<stdfs::path> reference_pip(int minor) {
    std::optional<stdfs::path> best;
    std::string best_version;
    for (const auto& i : interpreters())
        for (const auto& w : i.wheels) {
            std::string name = w.filename().string();
            if (name.rfind("pip-", 0) != 0) continue;
            std::string version = name.substr(4, name.find('-', 4) - 4);
            int major = std::stoi(version);
            bool runs = major >= 24 ? minor >= 8 : major >= 22 ? minor >= 7 : true;
            auto key = [](const std::string& v) {
                std::vector<int> parts;
                for (auto p : str::split(v, '.')) parts.push_back(std::stoi(std::string(p)));
                return parts;
            };
            if (runs && (!best || key(version) > key(best_version))) {
                best = w;
                best_version = version;
            }
        }
    return best;
}

int python_minor(const stdfs::path& python) {
    auto r = run_program({python.string(), "-c", "import sys; print(sys.version_info[1])"});
    return r.code == 0 ? std::stoi(r.out) : 0;
}

std::map<std::string, standards::RecordEntry> record_rows(const std::string& text) {
    std::map<std::string, standards::RecordEntry> out;
    auto rows = standards::parse_record(text, "RECORD");
    EXPECT_TRUE(rows);
    if (rows)
        for (auto& r : *rows) out[r.path] = r;
    return out;
}

class RealWheels : public ::testing::TestWithParam<Interpreter> {};



}  // namespace

TEST_P(RealWheels, InstallLikePipAndRun) {
    Interpreter in = GetParam();
    if (in.minor == 0) in.minor = python_minor(in.python);
    auto ref = reference_pip(in.minor);
    ASSERT_TRUE(ref) << "no bundled pip runs on 3." << in.minor;
    for (const auto& wheel : in.wheels) {
        SCOPED_TRACE(wheel.filename().string());
        TempDir dir;
        auto home = dir / "home";
        auto venv = dir / "v";

        // pip first, at the same path envfix then uses: launchers and activation scripts embed it.
        make_bare_venv(venv, in.python);
        auto pip = run_program({(venv / "bin" / "python").string(), (*ref / "pip").string(), "install", "--no-compile", "--no-deps",
                                "--no-index", "--no-cache-dir", "--disable-pip-version-check", "--no-warn-script-location",
                                wheel.string()},
                               {{"HOME", home.string()}, {"PIP_CONFIG_FILE", "/dev/null"}}, 300);
        ASSERT_EQ(pip.code, 0) << pip.err;
        Tree by_pip = snapshot(venv);
        stdfs::remove_all(venv);

        make_bare_venv(venv, in.python);
        auto r = run_envfix({"install", "--python", (venv / "bin" / "python").string(), wheel.string()}, {}, home);
        ASSERT_EQ(r.code, 0) << r.err;
        Tree by_envfix = snapshot(venv, {".envfix"});  // its snapshots (docs/snapshots.md)

        // Same paths, types, modes; same bytes except INSTALLER, RECORD and direct_url.json,
        // compared below; REQUESTED and direct_url.json are absent where the reference pip is
        // older than 20.2, which did not write them. pip 18 (the only pip for Python 3.6) wrote
        // launchers from an older distlib template: there they are compared by shebang and
        // import line.
        std::string ref_name = ref->filename().string();
        bool old_template = std::stoi(ref_name.substr(4)) < 19;
        auto launcher = [&](const std::string& path) { return old_template && path.rfind("bin/", 0) == 0 && path != "bin/python"; };
        auto essence = [](const std::string& text) {
            std::string first = text.substr(0, text.find('\n'));
            auto from = text.find("\nfrom ");
            return first + "|" + (from == std::string::npos ? "" : text.substr(from, text.find('\n', from + 1) - from));
        };
        std::string record_key, direct_url_key;
        for (const auto& [path, entry] : by_envfix) {
            auto it = by_pip.find(path);
            bool metadata = path.ends_with("/INSTALLER") || path.ends_with("/RECORD") || path.ends_with("/direct_url.json");
            if (path.ends_with(".dist-info/RECORD")) record_key = path;
            if (path.ends_with("/direct_url.json")) direct_url_key = path;
            if (it == by_pip.end()) {
                EXPECT_TRUE(path.ends_with("/REQUESTED") || path.ends_with("/direct_url.json")) << "only envfix wrote " << path;
                continue;
            }
            EXPECT_EQ(entry.type, it->second.type) << path;
            EXPECT_EQ(entry.mode, it->second.mode) << path;
            if (launcher(path) && entry.type == 'f') {
                EXPECT_EQ(essence(entry.data), essence(it->second.data)) << path;
            } else if (!metadata) {
                EXPECT_TRUE(entry.data == it->second.data) << "contents differ: " << path;
            }
        }
        for (const auto& [path, entry] : by_pip) EXPECT_TRUE(by_envfix.count(path)) << "only pip wrote " << path;
        EXPECT_EQ(by_envfix.at(record_key.substr(0, record_key.size() - 6) + "INSTALLER").data, "envfix\n");

        auto ours = record_rows(by_envfix.at(record_key).data);
        auto theirs = record_rows(by_pip.at(record_key).data);
        for (const auto& [path, row] : theirs) {
            auto it = ours.find(path);
            ASSERT_NE(it, ours.end()) << "RECORD lacks " << path;
            if (path.ends_with("/INSTALLER") || path.ends_with("/direct_url.json")) continue;
            if (path.rfind("../../../bin/", 0) == 0 && launcher(path.substr(9))) continue;
            EXPECT_EQ(it->second.hash_algorithm + "=" + it->second.hash_digest, row.hash_algorithm + "=" + row.hash_digest) << path;
            EXPECT_EQ(it->second.size, row.size) << path;
        }
        for (const auto& [path, row] : ours)
            EXPECT_TRUE(theirs.count(path) || path.ends_with("/REQUESTED") || path.ends_with("/direct_url.json")) << path;
        if (by_pip.count(direct_url_key)) {
            auto a = nlohmann::json::parse(by_envfix.at(direct_url_key).data);
            auto b = nlohmann::json::parse(by_pip.at(direct_url_key).data);
            EXPECT_EQ(a["url"], b["url"]);
        }

        // The pip envfix installed runs, as a module and through its launcher.
        if (wheel.filename().string().rfind("pip-", 0) == 0) {
            std::string version = wheel.filename().string().substr(4);
            version = version.substr(0, version.find('-'));
            auto m = run_program({(venv / "bin" / "python").string(), "-m", "pip", "--version"}, {{"HOME", home.string()}});
            EXPECT_EQ(m.code, 0) << m.err;
            EXPECT_EQ(m.out.rfind("pip " + version + " from " + (venv / "lib").string(), 0), 0u) << m.out;
            auto l = run_program({(venv / "bin" / "pip").string(), "--version"}, {{"HOME", home.string()}});
            EXPECT_EQ(l.code, 0) << l.err;
            EXPECT_EQ(l.out.rfind("pip " + version, 0), 0u) << l.out;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Bundled, RealWheels, ::testing::ValuesIn(interpreters()),
                         [](const ::testing::TestParamInfo<Interpreter>& i) { return i.param.label; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RealWheels);
