// What FileLock does alike everywhere; taking and releasing it is in file_lock_{posix,win32}.cpp.
#include "envfix/common/file_lock.hpp"

namespace envfix::fs {

FileLock::FileLock(FileLock&& o) noexcept : handle_(o.handle_), target_(o.target_) { o.handle_ = -1; }

FileLock& FileLock::operator=(FileLock&& o) noexcept {
    if (this != &o) {
        release();
        handle_ = o.handle_;
        target_ = o.target_;
        o.handle_ = -1;
    }
    return *this;
}

FileLock::~FileLock() { release(); }

}  // namespace envfix::fs
