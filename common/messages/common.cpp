// Messages of the common area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
// A table of sentences, one entry a line or two, as translators read it: laid out by hand.
// clang-format off
const CatalogEntry entries[] = {
    // Reasons inside other messages ({reason}), in the user's language.
    {"reason.cannot_open", "cannot open", "无法打开"},
    {"reason.file_and_folder", "a file and a folder of one name", "同名的文件和文件夹"},
    {"reason.no_facts", "no facts line", "解释器没有输出信息行"},
    {"reason.no_header", "no header line", "缺少头行"},
    {"reason.no_such_file", "no such file", "文件不存在"},
    {"reason.not_detached", "could not start it detached", "无法在后台启动它"},
    {"reason.not_executable", "not found or not executable", "找不到或不可执行"},
    {"reason.not_found", "not found", "找不到"},
    {"reason.read_error", "read error", "读取出错"},
    {"reason.too_large", "larger than {bytes} bytes", "大于 {bytes} 字节"},
    {"process.start_failed", "cannot start {program}: {reason}", "无法启动 {program}：{reason}"},
    {"fs.read_failed", "cannot read {path}: {reason}", "无法读取 {path}：{reason}"},
    {"fs.write_failed", "cannot write {path}: {reason}", "无法写入 {path}：{reason}"},
    {"fs.in_use",
     "{path} is in use by another program (a running app, an editor, an antivirus scan) and cannot be moved: close it and run the command again",
     "{path} 正被其他程序占用（正在运行的应用、编辑器或杀毒软件扫描），无法移动：请关闭该程序后重新运行此命令"},
    {"fs.link_on_the_way", "refusing to touch {path}: {link} is a link, and what an environment records must stay inside it (docs/security.md); nothing was done",
     "拒绝操作 {path}：{link} 是一个链接，而环境中记录的路径必须留在环境内部（见 docs/security.md）；未做任何改动"},
    {"fs.map_failed", "cannot map {path}: {reason}", "无法映射 {path}：{reason}"},
    {"fs.locked", "{path} is in use by another envfix (process {pid}); try again when it has finished",
     "{path} 正被另一个 envfix 进程（{pid}）使用；请等它结束后再试"},
    {"fs.lock_failed", "cannot lock {path}: {reason}", "无法锁定 {path}：{reason}"},
    {"fs.lock_waiting", "waiting for envfix (process {pid}) to finish with {path}", "正在等待 envfix（进程 {pid}）完成对 {path} 的操作"},
    {"fs.lock_interrupted", "interrupted while waiting for {path}", "等待 {path} 时被中断"},
    {"hash.file_failed", "cannot hash {path}: {reason}", "无法计算 {path} 的哈希：{reason}"},
};
// clang-format on
}  // namespace
const Catalog kCommon{entries};
}  // namespace envfix::messages
