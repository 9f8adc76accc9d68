#include "reference_python.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "envfix/common/file_lock.hpp"
#include "envfix/common/fs.hpp"
#include "support.hpp"

namespace envfix::test {

namespace stdfs = std::filesystem;

namespace {

stdfs::path script() { return source_dir() / "tests/standards/packaging_reference.py"; }

std::string run_checked(const std::vector<std::string>& argv) {
    auto r = run_program(argv, {}, 300);
    EXPECT_EQ(r.code, 0) << argv[0] << " failed: " << r.err;
    return r.out;
}

// One venv per base interpreter, made under a lock so parallel tests share it.
stdfs::path cached_venv(const stdfs::path& python) {
    std::string key = python.string();
    std::replace(key.begin(), key.end(), '/', '_');
    stdfs::path dir = build_dir() / "cache" / ("packaging-reference" + key);
    stdfs::create_directories(dir.parent_path());
    auto lock = fs::FileLock::acquire(dir.string() + ".lock", {.wait = true});
    EXPECT_TRUE(lock) << "cannot lock " << dir;
    stdfs::path venv_python = dir / "bin" / "python";
    if (stdfs::exists(dir / ".complete")) return venv_python;
    stdfs::remove_all(dir);
    stdfs::path made = make_venv(dir, false, python);
    write_text(dir / ".complete", "");
    return made;
}

// pyenv names its folders by version: "3.12.1" -> 312.
int folder_version(const stdfs::path& dir) {
    std::string name = dir.filename().string();
    int major = std::atoi(name.c_str());
    size_t dot = name.find('.');
    return dot == std::string::npos ? 0 : major * 100 + std::atoi(name.c_str() + dot + 1);
}

}  // namespace

std::vector<stdfs::path> machine_pythons() {
    std::vector<stdfs::path> out{test_python()};
    std::vector<std::pair<int, stdfs::path>> pyenv;
    const char* root = std::getenv("PYENV_ROOT");
    stdfs::path versions = stdfs::path(root ? root : "/root/.pyenv") / "versions";
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(versions, ec)) {
        stdfs::path py = e.path() / "bin" / "python3";
        if (e.path().filename().string().rfind("3.", 0) != 0 || !stdfs::exists(py)) continue;
        pyenv.push_back({folder_version(e.path()), py});
    }
    std::sort(pyenv.begin(), pyenv.end());
    for (auto& [v, p] : pyenv) out.push_back(p);
    return out;
}

stdfs::path reference_venv_python() {
    // The newest pyenv interpreter (its bundled pip vendors the newest packaging), else Debian's.
    static const stdfs::path cached = [] {
        auto pythons = machine_pythons();
        stdfs::path best = pythons.front();
        if (pythons.size() > 1 && folder_version(pythons.back().parent_path().parent_path()) >= 308) best = pythons.back();
        return cached_venv(best);
    }();
    return cached;
}

std::optional<nlohmann::json> interpreter_facts_with_pip(const stdfs::path& python) {
    auto facts = [](const stdfs::path& py) -> std::optional<nlohmann::json> {
        auto r = run_program({py.string(), script().string(), "--facts"}, {}, 300);
        if (r.code != 0) return std::nullopt;
        try {
            return nlohmann::json::parse(r.out);
        } catch (const std::exception&) {
            return std::nullopt;
        }
    };
    if (auto j = facts(python)) return j;
    // No pip in the interpreter itself (Debian's python3): a venv made from it has one.
    return facts(cached_venv(python));
}

nlohmann::json ask_reference(const nlohmann::json& request, const stdfs::path& python) {
    TempDir dir("reference");
    write_text(dir / "request.json", request.dump());
    std::string out = run_checked({python.string(), script().string(), (dir / "request.json").string()});
    try {
        return nlohmann::json::parse(out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "packaging_reference.py printed no JSON: " << e.what();
        return {};
    }
}

int packaging_major(const nlohmann::json& answer) { return std::atoi(answer.value("packaging", std::string("0")).c_str()); }

}  // namespace envfix::test
