// Messages of the resolver area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"resolver.placeholder", "(unused)", "（未使用）"},
};
}  // namespace
const Catalog kResolver{entries};
}  // namespace envfix::messages
