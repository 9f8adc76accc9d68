#include "wine_fixture.hpp"

namespace envfix::test::wine {

stdfs::path exe() { return stdfs::path(ENVFIX_WINDOWS_BUILD) / "envfix.exe"; }
stdfs::path build_dir() { return ENVFIX_WINDOWS_BUILD; }

std::string winpath(const stdfs::path& p) {
    std::string s = "Z:" + stdfs::absolute(p).lexically_normal().string();
    for (char& c : s)
        if (c == '/') c = '\\';
    return s;
}

void WineTest::SetUp() {
    if (!stdfs::exists(exe())) GTEST_SKIP() << "no " << exe().string() << " (scripts/build-windows makes it)";
    const stdfs::path tpl = ENVFIX_WINE_TEMPLATE;
    ASSERT_TRUE(stdfs::exists(tpl / "system.reg")) << "no Wine prefix template (the Windows.PrefixTemplate fixture)";
    stdfs::create_directories(prefix);
    auto cp = run_program({"cp", "-al", (tpl / ".").string(), prefix.string()});
    ASSERT_EQ(cp.code, 0) << cp.err;
    for (const auto& e : stdfs::directory_iterator(tpl))
        if (e.path().extension() == ".reg") {
            stdfs::remove(prefix / e.path().filename());
            stdfs::copy_file(e.path(), prefix / e.path().filename());
        }
    stdfs::create_directories(home);
}

void WineTest::TearDown() {
    // Wine's server for this prefix lingers a few seconds after the last program; not past the test.
    if (stdfs::exists(prefix)) run_program({ENVFIX_WINESERVER, "-k"}, {{"WINEPREFIX", prefix.string()}}, 30);
}

RunResult WineTest::envfix(const std::vector<std::string>& args, const EnvList& env, int timeout_s) {
    std::vector<std::string> argv{exe().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return wine(argv, env, dir.path(), timeout_s);
}

RunResult WineTest::wine(const std::vector<std::string>& args, const EnvList& env, const stdfs::path& cwd, int timeout_s) {
    std::vector<std::string> argv{ENVFIX_WINE64};
    argv.insert(argv.end(), args.begin(), args.end());
    EnvList full{{"WINEPREFIX", prefix.string()},
                 {"WINEDEBUG", "-all"},
                 {"LC_CTYPE", "C.UTF-8"},  // the charset Wine turns Unix arguments and variables into UTF-16 by
                 {"ENVFIX_LANG", "en"},
                 {"ENVFIX_CACHE_DIR", winpath(home / "cache")},
                 {"ENVFIX_CONFIG_DIR", winpath(home / "config")},
                 {"ENVFIX_DATA_DIR", winpath(home / "data")}};
    full.insert(full.end(), env.begin(), env.end());
    auto r = run_program(argv, full, timeout_s, cwd);
    for (auto* s : {&r.out, &r.err}) std::erase(*s, '\r');
    return r;
}

std::string WineTest::rtx5090(const std::string& extra) {
    return "name=NVIDIA GeForce RTX 5090,cc=12.0,mem=32607MiB,sms=170,bus=0000:01:00.0,"
           "uuid=GPU-50905090-1111-4000-8000-000000005090" +
           extra;
}

EnvList WineTest::standin(const std::string& gpu) {
    return {{"ENVFIX_LIBCUDA", winpath(build_dir() / "standin/nvcuda.dll")},
            {"ENVFIX_LIBNVML", winpath(build_dir() / "standin/nvml.dll")},
            {"ENVFIX_STANDIN_GPUS", gpu},
            {"ENVFIX_STANDIN_DRIVER", "570.133.07"},
            {"ENVFIX_STANDIN_CUDA", "12080"}};
}

}  // namespace envfix::test::wine
