#pragma once
// Real environments for doctor and check tests: venvs of Debian's python3 with pip, filled by
// real pip from wheels that tests/tools/mkwheel.py builds. `python -m venv` with pip takes
// seconds, so one is made per build tree and copied (a venv works from any folder once copied:
// its python is a link to the base interpreter and pyvenv.cfg sits beside it).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support.hpp"

namespace envfix::test {

// A fresh venv with pip at `dir` (of `base`, default Debian's python3); returns its python.
std::filesystem::path pip_venv(const std::filesystem::path& dir, const std::filesystem::path& base = test_python());
// The venv's purelib folder.
std::filesystem::path venv_site_packages(const std::filesystem::path& python);
// `python -m pip install --no-deps --no-index` of local wheels (fails the test on error).
void pip_install(const std::filesystem::path& python, const std::vector<std::filesystem::path>& wheels,
                 const std::vector<std::string>& extra_args = {});
// `pip install --target DIR` (a Windows layout's Lib/site-packages: files only).
void pip_install_target(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& wheels);

// A torch-shaped wheel: torch/version.py (`cuda` "" = None), torch/__init__.py standing in for
// torch in the reproduction (`repro_error` "" = the matmul works, else the RuntimeError it
// raises), and `lib_fixture` (tests/fixtures/fatbin/<name>) as torch/lib/<lib_name>.
struct TorchWheel {
    std::string version;
    std::string cuda;
    std::string lib_fixture;
    std::string lib_name = "libtorch_cuda.so";
    std::vector<std::string> requires_dist;
    std::string repro_error;
};
nlohmann::ordered_json torch_wheel(const TorchWheel& w);
// Any distribution: name, version, Requires-Dist, files.
nlohmann::ordered_json dist_wheel(const std::string& name, const std::string& version, const std::vector<std::string>& requires_dist = {},
                                  const nlohmann::ordered_json& files = nlohmann::ordered_json::object());

inline constexpr const char* kNoKernelImage =
    "CUDA error: no kernel image is available for execution on the device\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1";

}  // namespace envfix::test
