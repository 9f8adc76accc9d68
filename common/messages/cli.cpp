// Messages of the cli area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"cli.internal", "internal error: {what}", "内部错误：{what}"},
};
}  // namespace
const Catalog kCli{entries};
}  // namespace envfix::messages
