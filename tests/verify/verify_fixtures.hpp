#pragma once
// Test pieces for the framework check: fake torch wheels (fake_torch/README.md), a package with a
// self-test, and a byte-for-byte picture of a folder tree.
#include <map>
#include <string>
#include <vector>

#include "support.hpp"

namespace envfix::test::verify {

struct FakeTorch {
    std::string version = "2.7.0+cu128";
    std::string mode = "ok";  // fake_torch/README.md
    std::vector<std::string> arch_list = {"sm_80", "sm_86", "sm_90", "sm_100", "sm_120"};
    std::string fail_op;      // with mode no_kernel_image: only this op
};
stdfs::path fake_torch_wheel(const FakeTorch& t, const stdfs::path& out_dir);

// kernpkg VERSION whose self_test() passes (returns "sm_90 ok") or raises torch's no-kernel-image text.
stdfs::path selftest_wheel(const std::string& version, bool passes, const stdfs::path& out_dir);

// Every file, folder and link under `root`: path -> content (files), target (links), "dir".
// Every path under root (envfix's own .envfix/ records left out) with its bytes, link target or "dir".
std::map<std::string, std::string> tree(const stdfs::path& root);

}  // namespace envfix::test::verify
