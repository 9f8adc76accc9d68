// Messages of the index area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"index.placeholder", "(unused)", "（未使用）"},
};
}  // namespace
const Catalog kIndex{entries};
}  // namespace envfix::messages
