// How long the app profiles take to load, app folders to be found, and the check of a framework
// change to run (docs/performance.md, "Other benches"). Built by tests/apps/CMakeLists.txt as apps_bench;
// run through bench/apps.sh, which also times the commands end to end.
//   apps_bench <home>   makes <home> with one folder per app (kept for apps.sh), then measures
#include <cstdio>
#include <string>
#include <vector>

#include "envfix/apps/app_profiles.hpp"
#include "envfix/apps/app_target.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/probe/app_folder.hpp"
#include "median.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::standards;
using namespace envfix::matrix;
using namespace envfix::apps;
using envfix::bench::median_ms;
namespace stdfs = std::filesystem;

namespace {

void touch(const stdfs::path& p, const std::string& text = "") {
    if (!stdfs::exists(p)) test::write_text(p, text);
}

// One install of each app under `home`, where the usual places point; ComfyUI with 40 custom nodes.
void make_home(const stdfs::path& home) {
    for (const char* f : {"ComfyUI/main.py", "ComfyUI/nodes.py", "ComfyUI/comfy/__init__.py"}) touch(home / f);
    touch(home / "ComfyUI/requirements.txt", "torch\ntorchsde\ntorchvision\ntorchaudio\nnumpy>=1.25.0\neinops\ntransformers>=4.50.3\n");
    for (int i = 0; i < 40; ++i)
        touch(home / ("ComfyUI/custom_nodes/node" + std::to_string(i) + "/requirements.txt"),
              "opencv-python>=4.7\nsegment-anything\ngit+https://github.com/x/y" + std::to_string(i) + ".git\ntorch>=2.0\n");
    for (const char* f : {"stable-diffusion-webui/webui.py", "stable-diffusion-webui/launch.py",
                          "stable-diffusion-webui/modules/launch_utils.py", "stable-diffusion-webui-forge/webui.py",
                          "stable-diffusion-webui-forge/launch.py", "stable-diffusion-webui-forge/modules_forge/x.py",
                          "sdnext/installer.py", "sdnext/launch.py", "sdnext/modules/x.py", "invokeai/invokeai.yaml",
                          "Fooocus/entry_with_update.py", "Fooocus/fooocus_version.py", "kohya_ss/kohya_gui.py"})
        touch(home / f);
    for (const char* app : {"ComfyUI/.venv", "stable-diffusion-webui/venv", "stable-diffusion-webui-forge/venv", "sdnext/venv",
                            "invokeai/.venv", "Fooocus/fooocus_env", "kohya_ss/venv"})
        if (!stdfs::exists(home / app / "pyvenv.cfg")) test::make_venv(home / app, true);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: apps_bench <home>\n");
        return 2;
    }
    const stdfs::path home = stdfs::absolute(argv[1]);
    make_home(home);

    std::vector<ProfileText> texts = *read_app_profile_texts(test::source_dir() / "profiles");
    AppCatalog catalog = *load_embedded_app_profiles();
    Matrix matrix = *load_embedded_profiles();
    const auto sigs = catalog.signatures();
    probe::AppSearch search{.cwd = home, .home = home, .os = platform::Os::Linux};

    double decode = median_ms(200, [] { (void)load_embedded_app_profiles(); });
    double yaml = median_ms(30, [&] { (void)parse_app_profiles(texts); });
    double match = median_ms(200, [&] { (void)probe::match_app_folder(home / "ComfyUI", sigs); });
    size_t found = 0;
    double find = median_ms(50, [&] { found = find_apps(catalog, search).size(); });

    auto target = *resolve_app_target(catalog, {.app = "comfyui", .path = home / "ComfyUI"}, {});
    auto reqs = read_app_requirements(*target.profile, target.folder, target.code_dir(), platform::Os::Linux);
    AppCheckInput in{.profile = target.profile, .planned = {{"torch", "2.8.0+cu128"}}, .matrix = &matrix,
                     .requirements = reqs.files, .markers = marker_environment(target.env.facts)};
    size_t findings = 0;
    double pure = median_ms(200, [&] { findings = check_app_constraints(in).findings.size(); });
    double read = median_ms(50, [&] { (void)read_app_requirements(*target.profile, target.folder, target.code_dir(), platform::Os::Linux); });
    double full = median_ms(50, [&] { (void)check_app_target(target, {{"torch", "2.8.0+cu128"}}, &matrix); });

    std::printf("%-62s %8.3f ms\n", "decode the built-in app profiles (7 apps)", decode);
    std::printf("%-62s %8.3f ms\n", "parse profiles/apps/*.yaml (yaml-cpp)", yaml);
    std::printf("%-62s %8.3f ms\n", "recognise one folder (match_app_folder, 7 apps)", match);
    std::printf("%-62s %8.3f ms  (%zu found)\n", "search the current folder and the usual places", find, found);
    std::printf("%-62s %8.3f ms  (%zu files)\n", "read ComfyUI's requirement files (1 + 40 custom nodes)", read, reqs.files.size());
    std::printf("%-62s %8.3f ms  (%zu findings)\n", "check_app_constraints() on them (pure)", pure, findings);
    std::printf("%-62s %8.3f ms\n", "check_app_target() (reads installed, files, then checks)", full);
    return 0;
}
