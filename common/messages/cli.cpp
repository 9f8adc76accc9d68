// Messages of the cli area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"cli.internal", "internal error: {what}", "内部错误：{what}"},
    {"doctor.no_env_yet", "no Python environment inspected yet", "尚未检查任何 Python 环境"},
};
}  // namespace
const Catalog kCli{entries};
}  // namespace envfix::messages
