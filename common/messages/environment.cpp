// Messages of the environment area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"environment.placeholder", "(unused)", "（未使用）"},
};
}  // namespace
const Catalog kEnvironment{entries};
}  // namespace envfix::messages
