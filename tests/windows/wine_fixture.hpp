#pragma once
// envfix.exe (scripts/build-windows) run under Debian's Wine for the Windows.* tests
// (docs/windows.md, docs/testing.md). Each test gets a WINEPREFIX of its own, copied from the one
// template the Windows.PrefixTemplate fixture makes per ctest run (wineboot takes ~15 s, a copy
// well under one): files hard-linked, as Wine only reads its DLLs there, registry files copied,
// as Wine rewrites them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support.hpp"

namespace envfix::test::wine {

namespace stdfs = std::filesystem;

stdfs::path exe();  // build-windows/exe/envfix.exe
stdfs::path build_dir();  // build-windows/exe (stand-in DLLs in standin/)
// "Z:\work\…": Wine's Z: drive is the Unix root.
std::string winpath(const stdfs::path& p);

class WineTest : public ::testing::Test {
public:
    // envfix.exe with `args`; output with Windows' CR LF turned into LF. Caches and settings are
    // under home/ (ENVFIX_CACHE_DIR & co. as Windows paths), ENVFIX_LANG=en unless `env` says.
    RunResult envfix(const std::vector<std::string>& args, const EnvList& env = {}, int timeout_s = 180);
    // Any Windows program under Wine (cmd running a .bat), with the same environment as envfix().
    RunResult wine(const std::vector<std::string>& argv, const EnvList& env, const stdfs::path& cwd, int timeout_s = 300);
    // The stand-in driver named by ENVFIX_LIBCUDA / ENVFIX_LIBNVML with one GPU (`gpu`: the
    // stand-in's GPU fields, tests/standin/README.md).
    static EnvList standin(const std::string& gpu);
    static std::string rtx5090(const std::string& extra = "");
    stdfs::path system32() const { return prefix / "drive_c/windows/system32"; }

protected:
    void SetUp() override;
    void TearDown() override;

    TempDir dir{"wine"};
    stdfs::path prefix = dir / "prefix";
    stdfs::path home = dir / "home";
};

}  // namespace envfix::test::wine
