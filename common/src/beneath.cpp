// Paths inside a folder, the parts every platform shares (beneath.hpp).
#include "envfix/common/beneath.hpp"

namespace envfix::fs {

bool plain_relative(std::string_view rel) {
    if (rel.empty() || rel.front() == '/') return false;
    if (rel.find_first_of(std::string_view("\\:\0", 3)) != std::string_view::npos) return false;
    size_t start = 0;
    for (;;) {
        const size_t end = std::min(rel.find('/', start), rel.size());
        const auto part = rel.substr(start, end - start);
        if (part.empty() || part == "." || part == "..") return false;
        if (end == rel.size()) return true;
        start = end + 1;
    }
}

bool resolves_beneath(const std::filesystem::path& root, const std::filesystem::path& p) {
    std::error_code ec1, ec2;
    const auto r = std::filesystem::weakly_canonical(root, ec1);
    const auto q = std::filesystem::weakly_canonical(p, ec2);
    if (ec1 || ec2) return false;
    auto ri = r.begin(), qi = q.begin();
    for (; ri != r.end(); ++ri, ++qi) {
        if (ri->empty() && std::next(ri) == r.end()) break;  // root ended in a separator
        if (qi == q.end() || *qi != *ri) return false;
    }
    return true;
}

InsideRoot::InsideRoot(const std::filesystem::path& root) : root_(root.lexically_normal().native()) {
    std::error_code ec;
    real_root_ = std::filesystem::weakly_canonical(root, ec);
    if (ec) real_root_ = root.lexically_normal();
}

bool InsideRoot::holds(const std::filesystem::path::string_type& file) {
    const auto cut = file.rfind(std::filesystem::path::preferred_separator);
    if (cut == std::filesystem::path::string_type::npos || cut == 0) return false;
    return folder_inside(file.substr(0, cut));
}

bool InsideRoot::folder_inside(const std::filesystem::path::string_type& dir) {
    if (dir == root_) return true;
    if (auto it = known_.find(dir); it != known_.end()) return it->second;
    constexpr auto sep = std::filesystem::path::preferred_separator;
    bool inside = false;
    const bool under = dir.size() > root_.size() && dir.compare(0, root_.size(), root_) == 0 &&
                       (root_.back() == sep || dir[root_.size()] == sep);
    if (under) {
        std::error_code ec;
        const auto type = std::filesystem::symlink_status(dir, ec).type();
        const auto up = dir.rfind(sep);
        if (type == std::filesystem::file_type::directory || type == std::filesystem::file_type::not_found)
            inside = folder_inside(dir.substr(0, up));
        else if (type == std::filesystem::file_type::symlink)
            inside = resolves_beneath(real_root_, dir);
    }
    known_.emplace(dir, inside);
    return inside;
}

}  // namespace envfix::fs
