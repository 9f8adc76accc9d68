#include "pip_envs.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace envfix::test {

namespace stdfs = std::filesystem;

namespace {

// Made once per build tree and base interpreter: in a private folder first, then renamed into
// place, so parallel test processes never see half a venv.
stdfs::path template_venv(const stdfs::path& base = test_python()) {
    std::string id = std::to_string(std::hash<std::string>{}(base.string()));
    stdfs::path dir = build_dir() / "tmp" / ("pip-venv-template-" + id);
    if (stdfs::exists(dir / "ready")) return dir;
    stdfs::path mine = build_dir() / "tmp" / ("pip-venv-template-" + id + "." + std::to_string(::getpid()));
    stdfs::remove_all(mine);
    make_venv(mine, false, base);
    write_text(mine / "ready", "");
    std::error_code ec;
    stdfs::rename(mine, dir, ec);
    if (ec) stdfs::remove_all(mine);  // another process was first
    return dir;
}

}  // namespace

stdfs::path pip_venv(const stdfs::path& dir, const stdfs::path& base) {
    auto r = run_program({"cp", "-a", template_venv(base).string(), dir.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    stdfs::remove(dir / "ready");
    return dir / "bin" / "python";
}

stdfs::path venv_site_packages(const stdfs::path& python) {
    auto r = run_program({python.string(), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"});
    EXPECT_EQ(r.code, 0) << r.err;
    std::string out = r.out;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

void pip_install(const stdfs::path& python, const std::vector<stdfs::path>& wheels, const std::vector<std::string>& extra_args) {
    std::vector<std::string> argv{
        python.string(), "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile", "--disable-pip-version-check", "-q"};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    for (const auto& w : wheels) argv.push_back(w.string());
    auto r = run_program(argv);
    EXPECT_EQ(r.code, 0) << "pip install failed: " << r.err;
}

void pip_install_target(const stdfs::path& dir, const std::vector<stdfs::path>& wheels) {
    stdfs::path python = template_venv() / "bin" / "python";
    pip_install(python, wheels, {"--target", dir.string()});
}

nlohmann::ordered_json torch_wheel(const TorchWheel& w) {
    std::string error_literal = w.repro_error.empty() ? "None" : nlohmann::json(w.repro_error).dump();
    std::string init =
        "# Stands in for torch in envfix's tests: enough for the reproduction doctor --run runs.\n"
        "__version__ = '" +
        w.version +
        "'\n"
        "_ERROR = " +
        error_literal +
        "\n"
        "class cuda:\n"
        "    @staticmethod\n"
        "    def get_device_name(index=0):\n"
        "        return 'Stand-in GPU'\n"
        "class _Tensor:\n"
        "    def __matmul__(self, other):\n"
        "        if _ERROR:\n"
        "            raise RuntimeError(_ERROR)\n"
        "        return _Tensor()\n"
        "    def sum(self):\n"
        "        return 42.0\n"
        "def device(name):\n"
        "    return name\n"
        "def randn(*shape, device=None):\n"
        "    return _Tensor()\n";
    std::string version_py = "from typing import Optional\n\n__version__ = '" + w.version +
                             "'\ndebug = False\ncuda: Optional[str] = " + (w.cuda.empty() ? std::string("None") : "'" + w.cuda + "'") +
                             "\ngit_version = '0123456789abcdef'\nhip: Optional[str] = None\n";
    nlohmann::ordered_json files = {{"torch/__init__.py", init}, {"torch/version.py", version_py}};
    if (!w.lib_fixture.empty()) files["torch/lib/" + w.lib_name] = {{"copy", "tests/fixtures/fatbin/" + w.lib_fixture}};
    files["torch/lib/libc10.so"] = {{"copy", "tests/fixtures/fatbin/host_only.so"}};
    return {{"name", "torch"}, {"version", w.version}, {"requires_dist", w.requires_dist}, {"files", files}};
}

nlohmann::ordered_json dist_wheel(const std::string& name, const std::string& version, const std::vector<std::string>& requires_dist,
                                  const nlohmann::ordered_json& files) {
    nlohmann::ordered_json f = files;
    if (f.empty()) {
        std::string pkg = name;
        for (char& c : pkg)
            if (c == '-' || c == '.') c = '_';
        f[pkg + "/__init__.py"] = "__version__ = '" + version + "'\n";
    }
    return {{"name", name}, {"version", version}, {"requires_dist", requires_dist}, {"files", f}};
}

}  // namespace envfix::test
