// The portable part of the transaction's file operations (file_ops.hpp).
#include "file_ops.hpp"

namespace envfix::installer::fileops {

OutFile::OutFile(OutFile&& o) noexcept : path_(std::move(o.path_)), handle_(o.handle_), written_(o.written_), started_(o.started_) {
    o.handle_ = -1;
}

OutFile& OutFile::operator=(OutFile&& o) noexcept {
    if (this != &o) {
        this->~OutFile();
        path_ = std::move(o.path_);
        handle_ = o.handle_;
        written_ = o.written_;
        started_ = o.started_;
        o.handle_ = -1;
    }
    return *this;
}

}  // namespace envfix::installer::fileops
