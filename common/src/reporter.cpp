#include "envfix/common/reporter.hpp"

namespace envfix {

NullReporter& null_reporter() {
    static NullReporter r;
    return r;
}

}  // namespace envfix
