// Messages of the plan area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    {"plan.placeholder", "(unused)", "（未使用）"},
};
}  // namespace
const Catalog kPlan{entries};
}  // namespace envfix::messages
