// Messages of the apps area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"apps.placeholder", "(unused)", "（未使用）"},
};
}  // namespace
const Catalog kApps{entries};
}  // namespace envfix::messages
