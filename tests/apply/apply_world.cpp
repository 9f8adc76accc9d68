#include "apply_world.hpp"

#include "standin.hpp"

namespace envfix::test {

ApplyWorld::ApplyWorld()
    : index_(std::make_unique<ServedIndex>(std::vector<std::string>{"--torch", "2.9.0,2.11.0", "--variants", "cu128,cu130", "--pythons",
                                                                    "cp311", "--platforms", "manylinux_2_28_x86_64", "--fake-torch",
                                                                    "2.11.0=ok,2.9.0=no_kernel_image"})) {}

ApplyWorld& ApplyWorld::get() {
    static ApplyWorld w;  // the server stops and its folder goes at exit
    return w;
}

std::string ApplyWorld::index_section() const {
    return "index:\n  pytorch-index: " + pytorch_root() + "\n  index-url: " + index_url() + "\n";
}

RunResult run_as_h200(const std::vector<std::string>& args, const stdfs::path& home, const EnvList& extra) {
    auto env = standin::env("h200-580");
    env.insert(env.end(), extra.begin(), extra.end());
    return run_envfix(args, env, home, 300);
}

std::string installed_version(const stdfs::path& venv, const std::string& name) {
    std::error_code ec;
    for (const auto& lib : stdfs::directory_iterator(venv / "lib", ec)) {
        auto site = lib.path() / "site-packages";
        for (const auto& e : stdfs::directory_iterator(site, ec)) {
            auto n = e.path().filename().string();
            std::string prefix = name + "-";
            if (n.starts_with(prefix) && n.ends_with(".dist-info")) return n.substr(prefix.size(), n.size() - prefix.size() - 10);
        }
    }
    return "";
}

}  // namespace envfix::test
