#include "envfix/common/error.hpp"

namespace envfix {

Failure::Failure(Error e) : err_(std::move(e)), what_(render(err_.message, Lang::En)) {}

}  // namespace envfix
