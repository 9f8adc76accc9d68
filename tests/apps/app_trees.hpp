#pragma once
// Folder trees laid out like each app's installs, made by the tests (marker files, launch
// scripts, requirement files; real venvs where the layout has one, an embeddable Python read from
// files for the Windows packages). docs/apps.md lists the layouts these follow.
#include <filesystem>
#include <string>
#include <vector>

namespace envfix::test {

// ComfyUI_windows_portable: python_embeded/ (python.exe, python312._pth with "../ComfyUI" and
// "import site", as the release workflow writes it), ComfyUI/ (main.py, comfy/, requirements.txt),
// run_nvidia_gpu.bat, update/.
std::filesystem::path make_comfyui_portable(const std::filesystem::path& dir);
// A git checkout of ComfyUI with a real venv at <dir>/<venv> ("" for none).
std::filesystem::path make_comfyui_git(const std::filesystem::path& dir, const std::string& venv = ".venv");
// A1111 from git (webui.py, launch.py, modules/launch_utils.py, webui-user.sh) with a real venv.
std::filesystem::path make_a1111_git(const std::filesystem::path& dir, const std::string& venv = "venv");
// Forge's one-click package: webui/ (with modules_forge/), system/python (an embeddable Python),
// run.bat, environment.bat.
std::filesystem::path make_forge_package(const std::filesystem::path& dir);
// SD.Next from git (installer.py, launch.py, modules/) with a real venv.
std::filesystem::path make_sdnext_git(const std::filesystem::path& dir);
// An InvokeAI root: invokeai.yaml and a real .venv.
std::filesystem::path make_invokeai_root(const std::filesystem::path& dir);
// Fooocus_win64_2-5-0: python_embeded/, Fooocus/ (entry_with_update.py), run.bat.
std::filesystem::path make_fooocus_portable(const std::filesystem::path& dir);
// kohya_ss from git: kohya_gui.py, requirements_linux.txt (-r requirements.txt), a real venv.
std::filesystem::path make_kohya_git(const std::filesystem::path& dir);

// A dist-info folder as an installer leaves it in site-packages: METADATA (Name, Version, one
// Requires-Dist per entry), INSTALLER, RECORD.
void add_dist(const std::filesystem::path& site_packages, const std::string& name, const std::string& version,
              const std::vector<std::string>& requires_dist = {});
// The site-packages folder of a posix venv made by make_venv (lib/python3.X/site-packages).
std::filesystem::path venv_site_packages(const std::filesystem::path& venv);

}  // namespace envfix::test
