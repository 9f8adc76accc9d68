#include "verify_fixtures.hpp"

#include <fstream>
#include <sstream>

namespace envfix::test::verify {

using Json = nlohmann::ordered_json;

stdfs::path fake_torch_wheel(const FakeTorch& t, const stdfs::path& out_dir) {
    Json conf = {{"mode", t.mode}, {"version", t.version}, {"arch_list", t.arch_list}};
    if (!t.fail_op.empty()) conf["fail_op"] = t.fail_op;
    const std::string src = "tests/verify/fake_torch/torch/";
    Json files = Json::object();
    for (const char* f : {"__init__.py", "backends.py", "cuda/__init__.py", "nn/__init__.py", "nn/functional.py"})
        files[std::string("torch/") + f] = {{"copy", src + f}};
    files["torch/_fake.json"] = conf.dump();
    return build_wheel({{"name", "torch"}, {"version", t.version}, {"files", files}}, out_dir);
}

stdfs::path selftest_wheel(const std::string& version, bool passes, const stdfs::path& out_dir) {
    std::string body = passes ? "def self_test():\n    return 'sm_90 ok'\n"
                              : "def self_test():\n    raise RuntimeError('CUDA error: no kernel image is available for "
                                "execution on the device')\n";
    return build_wheel({{"name", "kernpkg"}, {"version", version}, {"files", {{"kernpkg/__init__.py", body}}}}, out_dir);
}

std::map<std::string, std::string> tree(const stdfs::path& root) {
    std::map<std::string, std::string> out;
    for (auto it = stdfs::recursive_directory_iterator(root); it != stdfs::recursive_directory_iterator(); ++it) {
        std::string rel = stdfs::relative(it->path(), root).generic_string();
        if (rel == ".envfix") {  // envfix's own records (snapshots and their store), not the environment
            it.disable_recursion_pending();
            continue;
        }
        auto st = it->symlink_status();
        if (stdfs::is_symlink(st)) out[rel] = "link:" + stdfs::read_symlink(it->path()).string();
        else if (stdfs::is_directory(st)) out[rel] = "dir";
        else out[rel] = read_text(it->path());
    }
    return out;
}

}  // namespace envfix::test::verify
