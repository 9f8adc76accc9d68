// Messages of the cli area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
// A table of sentences, one entry a line or two, as translators read it: laid out by hand.
// clang-format off
const CatalogEntry entries[] = {
    {"cli.internal", "internal error: {what}", "内部错误：{what}"},
};
// clang-format on
}  // namespace
const Catalog kCli{entries};
}  // namespace envfix::messages
