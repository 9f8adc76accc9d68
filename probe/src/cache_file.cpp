#include "cache_file.hpp"

#include "envfix/common/fs.hpp"

namespace envfix::probe {

std::optional<nlohmann::json> read_cache_entries(const std::filesystem::path& file, int version) {
    auto text = fs::read_file(file);
    if (!text) return std::nullopt;
    try {
        auto j = nlohmann::json::parse(*text);
        if (!j.is_object() || j.value("version", -1) != version || !j.contains("entries") || !j["entries"].is_object())
            return std::nullopt;
        return std::move(j["entries"]);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

Expected<void> write_cache_entries(const std::filesystem::path& file, int version, nlohmann::json entries) {
    if (auto on_disk = read_cache_entries(file, version)) {
        for (auto& [key, value] : on_disk->items()) {
            std::error_code ec;
            if (!entries.contains(key) && std::filesystem::exists(key, ec)) entries[key] = std::move(value);
        }
    }
    nlohmann::json j = {{"version", version}, {"entries", std::move(entries)}};
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    // Keys are paths and need not be UTF-8 (a folder named in a legacy code page): replaced, so
    // such an entry is only never found again, where strict JSON would throw.
    // Not flushed: a file a crash left short reads as empty, and the cache is rebuilt.
    return fs::write_file_atomic(file, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), fs::Sync::Cache);
}

std::string cache_key(const std::filesystem::path& file) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(file, ec);
    return (ec ? file : abs).lexically_normal().string();
}

}  // namespace envfix::probe
