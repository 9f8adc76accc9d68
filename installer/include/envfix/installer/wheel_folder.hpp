#pragma once
// A folder of wheels for machines without the index (`envfix fetch --dest DIR`): flat (every
// wheel in DIR, pip's --find-links) or a PEP 503 tree (DIR/<project>/<file>, with index.html
// pages any static web server can serve as a mirror). The pages are pure text.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envfix::installer {

enum class WheelLayout { Flat, Pep503 };

struct FolderWheel {
    std::string canonical_name;
    std::string filename;
    std::string sha256;
};

// Where a wheel sits in a folder of `layout`, relative to it.
std::filesystem::path wheel_folder_path(WheelLayout layout, const FolderWheel& w);
// Where to look in a local folder whose layout is not known: flat first, then PEP 503.
std::optional<std::filesystem::path> find_in_wheel_folder(const std::filesystem::path& folder, const FolderWheel& w);
// The URL of a wheel in a folder served at `base` (its "+" written %2B, as the PyTorch index does).
std::string wheel_folder_url(std::string_view base, WheelLayout layout, const FolderWheel& w);

// PEP 503 pages: the root (one link per project) and a project's (one link per file, with
// "#sha256=" fragments). For the flat layout, one page listing every file.
std::string root_page(const std::vector<std::string>& canonical_names);
std::string project_page(std::string_view canonical_name, const std::vector<FolderWheel>& files);
std::string flat_page(const std::vector<FolderWheel>& files);

}  // namespace envfix::installer
