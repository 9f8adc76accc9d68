// Messages of the environment area: key, English, Chinese (nullptr = not translated yet).
// binary.*: reading GPU code from libraries; env.*: finding Python environments and their
// interpreters; envs.* / archs.*: the `envfix envs` and `envfix archs` commands.
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
// A table of sentences, one entry a line or two, as translators read it: laid out by hand.
// clang-format off
const CatalogEntry entries[] = {
    // Finding environments and running their interpreters.
    {"env.not_found", "no environment at {path}: the folder does not exist", "{path} 处没有环境：该文件夹不存在"},
    {"env.not_an_env",
     "{path} is not a Python environment: it has no pyvenv.cfg, no conda-meta/ folder and no Python executable",
     "{path} 不是 Python 环境：其中没有 pyvenv.cfg、conda-meta/ 文件夹，也没有 Python 可执行文件"},
    {"env.no_interpreter", "no Python interpreter at {path}", "{path} 处没有 Python 解释器"},
    {"env.no_python",
     "no Python found: no active virtual environment (VIRTUAL_ENV), no conda environment (CONDA_PREFIX) and no python3 "
     "on PATH; name one with --python, --env or --app/--path",
     "找不到 Python：没有激活的虚拟环境（VIRTUAL_ENV）、没有 conda 环境（CONDA_PREFIX），PATH 中也没有 python3；"
     "请用 --python、--env 或 --app/--path 指定"},
    {"env.target_conflict", "give only one of --python, --env, or --app with --path",
     "--python、--env、--app（配合 --path）只能指定其中一个"},
    {"env.app_without_path", "--app {app} needs --path, the folder the app is installed in",
     "--app {app} 需要用 --path 指定该应用的安装文件夹"},
    {"env.app_no_env", "no Python environment found in the app folder {path} (looked for {looked})",
     "在应用文件夹 {path} 中没有找到 Python 环境（查找了 {looked}）"},
    {"env.app_several", "{path} holds several Python environments; using {chosen}",
     "{path} 中有多个 Python 环境；使用 {chosen}"},
    {"env.debug.facts_cached", "interpreter facts of {python}: from the cache", "{python} 的解释器信息：取自缓存"},
    {"env.debug.facts_derived", "interpreter facts of {python}: from another venv of the same base in the cache, not run",
     "{python} 的解释器信息：取自缓存中同一基础解释器的另一个 venv，未运行"},
    {"env.debug.facts_ran", "interpreter facts of {python}: it was run ({ms} ms)", "{python} 的解释器信息：已运行它（{ms} 毫秒）"},
    {"env.interpreter_missing",
     "the environment {path} is broken: its interpreter {python} is missing (was the Python it was made from removed?)",
     "环境 {path} 已损坏：其解释器 {python} 不存在（创建它的 Python 是否已被删除？）"},
    {"env.run_failed", "{python} cannot run: {reason}", "{python} 无法运行：{reason}"},
    {"env.run_timeout", "{python} did not answer within {seconds} s", "{python} 在 {seconds} 秒内没有响应"},
    {"env.run_exit", "{python} failed (exit {code}) while envfix read its facts: {stderr}",
     "envfix 读取 {python} 的信息时它运行失败（退出码 {code}）：{stderr}"},
    {"env.bad_facts", "{python} printed nothing envfix can read ({reason})", "{python} 的输出无法被 envfix 解析（{reason}）"},
    {"env.foreign_layout",
     "{path} is a {os} environment: envfix reads its files, but its interpreter cannot run on this machine",
     "{path} 是 {os} 环境：envfix 可以读取其文件，但无法在本机运行其解释器"},
    // envfix envs
    {"envs.header.kind", "KIND", "类型"},
    {"envs.header.python", "PYTHON", "PYTHON"},
    {"envs.header.location", "LOCATION", "位置"},
    {"envs.header.found", "FOUND AS", "来源"},
    {"envs.header.status", "STATUS", "状态"},
    {"envs.found.active", "active", "当前激活"},
    {"envs.found.path", "python3 on PATH", "PATH 中的 python3"},
    {"envs.found.app", "app {app}", "应用 {app}"},
    {"envs.status.ok", "ok", "正常"},
    {"envs.status.files_only", "files only ({os} layout)", "仅读取文件（{os} 布局）"},
    {"envs.status.broken", "broken", "已损坏"},
    {"envs.none", "no Python environment found", "未找到任何 Python 环境"},
    {"envs.default_mark", "* = the environment commands use when none is named",
     "* = 未指定环境时命令使用的环境"},
    // envfix archs
    {"archs.files_and_target", "give either library files or --python/--env/--app/--path, not both",
     "请指定库文件，或 --python/--env/--app/--path，二者不能同时使用"},
    {"archs.environment", "environment: {root} ({kind}, Python {python})", "环境：{root}（{kind}，Python {python}）"},
    {"archs.header.library", "LIBRARY", "库"},
    {"archs.header.archs", "ARCHITECTURES", "架构"},
    {"archs.header.extras", "EXTRA KERNELS", "附加内核"},
    {"archs.header.ptx_isa", "PTX ISA", "PTX ISA"},
    {"archs.header.note", "NOTE", "备注"},
    {"archs.no_gpu_code", "no GPU code", "无 GPU 代码"},
    {"archs.partial", "partly unreadable", "部分无法读取"},
    {"archs.summary", "{count} libraries read ({cached} from the cache), {plain} without GPU code",
     "共读取 {count} 个库（{cached} 个来自缓存），其中 {plain} 个不含 GPU 代码"},
    // Reading libraries (errors: the file cannot be read as a library at all).
    {"binary.not_a_library", "{path} is not an ELF or PE library nor a fatbin (it starts with {magic})",
     "{path} 不是 ELF 或 PE 库，也不是 fatbin 文件（开头字节为 {magic}）"},
    {"binary.truncated_header", "{path} is too short to be a library: its header is cut off",
     "{path} 太短，不可能是库文件：文件头被截断"},
    {"binary.unsupported_elf", "{path}: {kind} ELF files are not supported (only little-endian ones)",
     "{path}：不支持 {kind} 的 ELF 文件（只支持小端格式）"},
    {"binary.bad_section_table", "{path}: the section table is damaged: {reason}", "{path}：节表已损坏：{reason}"},
    // Problems that leave a partial result.
    {"binary.problem.section_outside", "{path}: section {section} runs past the end of the file (is the file cut off?)",
     "{path}：节 {section} 超出了文件末尾（文件是否被截断？）"},
    {"binary.problem.section_overlap", "{path}: section {section} overlaps another GPU code section and was not read twice",
     "{path}：节 {section} 与另一个 GPU 代码节重叠，未重复读取"},
    {"binary.problem.bad_magic",
     "{path}: unexpected bytes at offset {offset} of {section} where a fatbin container should start; skipped to the next one",
     "{path}：{section} 偏移 {offset} 处本应是 fatbin 容器，却是无法识别的字节；已跳到下一个容器"},
    {"binary.problem.bad_container_header", "{path}: damaged fatbin container header at offset {offset} of {section}",
     "{path}：{section} 偏移 {offset} 处的 fatbin 容器头已损坏"},
    {"binary.problem.container_truncated", "{path}: the fatbin container at offset {offset} of {section} is cut off",
     "{path}：{section} 偏移 {offset} 处的 fatbin 容器被截断"},
    {"binary.problem.bad_entry_header",
     "{path}: damaged fatbin entry header at offset {offset} of {section}; the rest of that container was skipped",
     "{path}：{section} 偏移 {offset} 处的 fatbin 条目头已损坏；该容器的其余部分已跳过"},
    {"binary.problem.entry_truncated", "{path}: the fatbin entry at offset {offset} of {section} is cut off",
     "{path}：{section} 偏移 {offset} 处的 fatbin 条目被截断"},
    {"binary.problem.bad_arch", "{path}: the fatbin entry at offset {offset} names no valid GPU architecture ({arch})",
     "{path}：偏移 {offset} 处的 fatbin 条目没有有效的 GPU 架构编号（{arch}）"},
    {"binary.problem.bad_payload",
     "{path}: the sm_{arch} code at offset {offset} could not be decoded, so whether it is an arch-specific (a) build is unknown",
     "{path}：偏移 {offset} 处的 sm_{arch} 代码无法解码，无法判断它是否为特定架构（a）版本"},
    {"binary.interrupted", "{path} was not read: interrupted", "{path} 未读取：已中断"},
    {"binary.problem.more", "{path}: {count} more problems", "{path}：另有 {count} 个问题"},

    // Installed distributions (standards/installed.hpp)
    {"installed.no_metadata", "{path} has no METADATA file: this installed distribution is broken",
     "{path} 缺少 METADATA 文件：这个已安装的包已损坏"},
    {"installed.unreadable", "cannot list {path}: {reason}", "无法列出 {path}：{reason}"},
    {"record.bad_row", "{source} line {line}: {reason}", "{source} 第 {line} 行：{reason}"},
};
// clang-format on
}  // namespace
const Catalog kEnvironment{entries};
}  // namespace envfix::messages
