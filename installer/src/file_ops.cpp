// The portable part of the transaction's file operations (file_ops.hpp).
#include "file_ops.hpp"

namespace envfix::installer::fileops {

OutFile::OutFile(OutFile&& o) noexcept
    : path_(std::move(o.path_)), handle_(o.handle_), map_(o.map_), map_size_(o.map_size_), map_handle_(o.map_handle_) {
    o.handle_ = -1;
    o.map_ = nullptr;
    o.map_handle_ = 0;
}

OutFile& OutFile::operator=(OutFile&& o) noexcept {
    if (this != &o) {
        this->~OutFile();
        path_ = std::move(o.path_);
        handle_ = o.handle_;
        map_ = o.map_;
        map_size_ = o.map_size_;
        map_handle_ = o.map_handle_;
        o.handle_ = -1;
        o.map_ = nullptr;
        o.map_handle_ = 0;
    }
    return *this;
}

}  // namespace envfix::installer::fileops
