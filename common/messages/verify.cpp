// Messages of the verify area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"verify.placeholder", "(unused)", "（未使用）"},
};
}  // namespace
const Catalog kVerify{entries};
}  // namespace envfix::messages
