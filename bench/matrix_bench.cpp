// How long the matrix takes to load and to decide (docs/performance.md, "Matrix and policy").
// Built by tests/matrix/CMakeLists.txt as matrix_bench; run through bench/matrix.sh.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "envfix/matrix/gpu_names.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/matrix/policy.hpp"
#include "median.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::matrix;
using envfix::bench::median_ms;

namespace {

PolicyRequest machine(const Matrix& m, const char* gpu, const char* driver) {
    PolicyRequest req;
    req.machine.platform = {OsKind::Linux, CpuKind::X86_64};
    req.machine.python = "3.12";
    req.machine.driver = DriverVersion::parse(driver);
    auto g = resolve_gpu(m, gpu);
    req.machine.gpus.push_back({g->cc, g->name});
    return req;
}

}  // namespace

int main() {
    std::vector<ProfileText> texts;
    for (auto name : kProfileFiles)
        texts.push_back({std::string(name), "profiles/" + std::string(name),
                         test::read_text(test::source_dir() / "profiles" / std::string(name))});

    Matrix m = *load_embedded_profiles();
    double embedded = median_ms(200, [] { (void)load_embedded_profiles(); });
    double yaml = median_ms(20, [&] { (void)parse_profiles(texts); });
    auto fits = machine(m, "RTX 5090", "570.133.07");
    auto nothing = machine(m, "GTX 1080 Ti", "590.44.01");  // nothing fits: hints try other requests
    double choose_fit = median_ms(200, [&] { (void)choose(m, fits); });
    double choose_none = median_ms(50, [&] { (void)choose(m, nothing); });
    double name = median_ms(200, [&] { (void)resolve_gpu(m, "GeForce RTX 5090 D"); });
    double total = median_ms(100, [&] {
        Matrix mm = *load_embedded_profiles();
        (void)choose(mm, fits);
    });
    std::printf("built-in matrix decode      %8.3f ms (median of 200)\n", embedded);
    std::printf("YAML load (--profiles DIR)  %8.3f ms (median of 20)\n", yaml);
    std::printf("choose(), a build fits      %8.3f ms (median of 200)\n", choose_fit);
    std::printf("choose(), nothing fits      %8.3f ms (median of 50)\n", choose_none);
    std::printf("GPU name lookup             %8.3f ms (median of 200)\n", name);
    std::printf("decode + choose()           %8.3f ms (median of 100)\n", total);
    return 0;
}
