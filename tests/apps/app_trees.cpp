#include "app_trees.hpp"

#include "../binenv/layouts.hpp"
#include "support.hpp"

namespace envfix::test {

namespace {
void touch(const stdfs::path& p, const std::string& text = "") { write_text(p, text); }
}  // namespace

stdfs::path make_comfyui_portable(const stdfs::path& dir) {
    make_embedded(dir / "python_embeded", "python312.zip\n.\n../ComfyUI\nLib/site-packages\nimport site\n");
    touch(dir / "ComfyUI/main.py");
    touch(dir / "ComfyUI/nodes.py");
    touch(dir / "ComfyUI/comfy/__init__.py");
    touch(dir / "ComfyUI/requirements.txt", "torch\ntorchsde\ntorchvision\ntorchaudio\nnumpy>=1.25.0\n");
    touch(dir / "run_nvidia_gpu.bat", ".\\python_embeded\\python.exe -s ComfyUI\\main.py --windows-standalone-build\r\npause\r\n");
    touch(dir / "update/update_comfyui.bat", "..\\python_embeded\\python.exe .\\update.py ..\\ComfyUI\\\r\n");
    return dir;
}

stdfs::path make_comfyui_git(const stdfs::path& dir, const std::string& venv) {
    touch(dir / "main.py");
    touch(dir / "nodes.py");
    touch(dir / "comfy/__init__.py");
    touch(dir / "requirements.txt", "torch\ntorchsde\ntorchvision\ntorchaudio\nnumpy>=1.25.0\n");
    if (!venv.empty()) make_venv(dir / venv, true);
    return dir;
}

stdfs::path make_a1111_git(const stdfs::path& dir, const std::string& venv) {
    touch(dir / "webui.py");
    touch(dir / "launch.py");
    touch(dir / "modules/launch_utils.py");
    touch(dir / "webui.sh", "#!/usr/bin/env bash\n");
    touch(dir / "webui-user.sh", "#!/bin/bash\n#venv_dir=\"venv\"\n#export COMMANDLINE_ARGS=\"\"\n");
    touch(dir / "requirements_versions.txt", "torch\ntorchdiffeq==0.2.3\ntorchsde==0.2.6\ntransformers==4.30.2\n");
    if (!venv.empty()) make_venv(dir / venv, true);
    return dir;
}

stdfs::path make_forge_package(const stdfs::path& dir) {
    make_embedded(dir / "system/python", "python310.zip\n.\nLib/site-packages\nimport site\n", "python310._pth");
    touch(dir / "webui/webui.py");
    touch(dir / "webui/launch.py");
    touch(dir / "webui/modules/launch_utils.py");
    touch(dir / "webui/modules_forge/__init__.py");
    touch(dir / "webui/requirements_versions.txt", "torch\nxformers==0.0.27\n");
    touch(dir / "run.bat", "@echo off\r\ncall environment.bat\r\ncd %~dp0webui\r\ncall webui-user.bat\r\n");
    touch(dir / "environment.bat", "set DIR=%~dp0system\r\nset SKIP_VENV=1\r\n");
    return dir;
}

stdfs::path make_sdnext_git(const stdfs::path& dir) {
    touch(dir / "installer.py");
    touch(dir / "launch.py");
    touch(dir / "webui.py");
    touch(dir / "modules/__init__.py");
    touch(dir / "requirements.txt", "torchsde==0.2.6\ndiffusers\n");
    make_venv(dir / "venv", true);
    return dir;
}

stdfs::path make_invokeai_root(const stdfs::path& dir) {
    touch(dir / "invokeai.yaml", "# Internal metadata - do not edit:\nschema_version: 4.0.2\n");
    stdfs::create_directories(dir / "models");
    make_venv(dir / ".venv", true);
    return dir;
}

stdfs::path make_fooocus_portable(const stdfs::path& dir) {
    make_embedded(dir / "python_embeded", "python310.zip\n.\nLib/site-packages\nimport site\n", "python310._pth");
    touch(dir / "Fooocus/entry_with_update.py");
    touch(dir / "Fooocus/launch.py");
    touch(dir / "Fooocus/fooocus_version.py", "version = '2.5.0'\n");
    touch(dir / "Fooocus/requirements_versions.txt", "torchsde==0.2.6\neinops==0.4.1\n");
    touch(dir / "run.bat", ".\\python_embeded\\python.exe -s Fooocus\\entry_with_update.py\r\npause\r\n");
    return dir;
}

stdfs::path make_kohya_git(const stdfs::path& dir) {
    touch(dir / "kohya_gui.py");
    touch(dir / "gui.sh", "#!/usr/bin/env bash\n");
    touch(dir / "requirements_linux.txt",
          "torch==2.1.2+cu118 torchvision==0.16.2+cu118 --extra-index-url https://download.pytorch.org/whl/cu118 # no_verify\n"
          "xformers==0.0.23.post1+cu118 bitsandbytes==0.41.1\n-r requirements.txt\n");
    touch(dir / "requirements.txt", "accelerate==0.25.0\ndiffusers[torch]==0.25.0\n.\n");
    make_venv(dir / "venv", true);
    return dir;
}

void add_dist(const stdfs::path& site, const std::string& name, const std::string& version,
              const std::vector<std::string>& requires_dist) {
    std::string folder = name + "-" + version + ".dist-info";
    for (char& c : folder)
        if (c == '-' && &c < &folder[name.size()]) c = '_';
    std::string md = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
    for (const auto& r : requires_dist) md += "Requires-Dist: " + r + "\n";
    write_text(site / folder / "METADATA", md);
    write_text(site / folder / "INSTALLER", "pip\n");
    write_text(site / folder / "RECORD", folder + "/METADATA,,\n" + folder + "/RECORD,,\n");
}

stdfs::path venv_site_packages(const stdfs::path& venv) {
    for (const auto& e : stdfs::directory_iterator(venv / "lib"))
        if (e.path().filename().string().starts_with("python")) return e.path() / "site-packages";
    return venv / "lib" / "python3" / "site-packages";
}

}  // namespace envfix::test
