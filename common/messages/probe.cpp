// Messages of the probe area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"probe.placeholder", "(unused)", "（未使用）"},
};
}  // namespace
const Catalog kProbe{entries};
}  // namespace envfix::messages
