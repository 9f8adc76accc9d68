// Messages of the install area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"install.placeholder", "(unused)", "（未使用）"},
};
}  // namespace
const Catalog kInstall{entries};
}  // namespace envfix::messages
