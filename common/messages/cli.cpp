// Messages of the cli area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
// A table of sentences, one entry a line or two, as translators read it: laid out by hand.
// clang-format off
const CatalogEntry entries[] = {
    {"cli.internal", "internal error: {what}", "内部错误：{what}"},
    // The label before a line on stderr; Chinese ends it with a full-width colon and no space.
    {"cli.labelled", "{label} {text}", "{label}{text}"},
    {"cli.label.error", "error:", "错误："},
    {"cli.label.warning", "warning:", "警告："},
    {"cli.label.debug", "debug:", "调试："},
    {"cli.bad_command_line", "{what}", "命令行有误：{what}"},
    {"cli.run_help", "Run with --help for more information.", "加上 --help 查看用法。"},
};
// clang-format on
}  // namespace
const Catalog kCli{entries};
}  // namespace envfix::messages
