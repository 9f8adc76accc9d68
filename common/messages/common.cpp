// Messages of the common area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
// A table of sentences, one entry a line or two, as translators read it: laid out by hand.
// clang-format off
const CatalogEntry entries[] = {
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
