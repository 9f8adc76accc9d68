#pragma once
// The shape every probe cache file shares: {"version": N, "entries": {"<absolute path>": ...}},
// written atomically; a missing, damaged or other-version file reads as no entries.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "envfix/common/error.hpp"

namespace envfix::probe {

// The "entries" object of `file` when its version is `version`.
std::optional<nlohmann::json> read_cache_entries(const std::filesystem::path& file, int version);
// Writes {"version", "entries"} atomically, creating the folder. Entries another envfix process
// wrote since this one read the file are kept when their files still exist (two processes
// reading different environments both keep their results; for the same key, this one wins).
Expected<void> write_cache_entries(const std::filesystem::path& file, int version, nlohmann::json entries);
// The key of a file in a cache: its absolute, lexically normal path.
std::string cache_key(const std::filesystem::path& file);

// A cache file's entries in memory, each for a file or folder and valid for one stamp of it (a
// file's identity, a folder's state): on disk {"<key>": {"<stamp field>": "...", ...the value's
// fields}}. The value's fields are read by `from(entry)` and written by `to(value)` (an object).
template <class Value>
class StampedEntries {
public:
    // A cache that cannot be read is rebuilt, never an error: its entries are dropped.
    template <class From>
    void load(const std::filesystem::path& file, int version, const char* stamp_field, From from) {
        file_ = file;
        auto entries = read_cache_entries(file, version);
        if (!entries) return;
        try {
            for (const auto& [key, e] : entries->items())
                entries_[key] = {e.at(stamp_field).template get<std::string>(), from(e)};
        } catch (const std::exception&) {
            entries_.clear();
        }
    }
    std::optional<Value> find(const std::filesystem::path& p, std::string_view stamp) const {
        auto it = entries_.find(cache_key(p));
        if (it == entries_.end() || it->second.first != stamp) return std::nullopt;
        return it->second.second;
    }
    void put(const std::filesystem::path& p, std::string stamp, Value value) {
        entries_[cache_key(p)] = {std::move(stamp), std::move(value)};
        dirty_ = true;
    }
    size_t size() const { return entries_.size(); }
    bool dirty() const { return dirty_; }
    // Writes the file when something changed (never for a cache in memory only, loaded from no
    // file), dropping entries whose file or folder is gone.
    template <class To>
    Expected<void> save(int version, const char* stamp_field, To to) {
        if (!dirty_ || file_.empty()) return {};
        nlohmann::json entries = nlohmann::json::object();
        for (const auto& [key, e] : entries_) {
            std::error_code ec;
            if (!std::filesystem::exists(key, ec)) continue;
            nlohmann::json entry = to(e.second);
            entry[stamp_field] = e.first;
            entries[key] = std::move(entry);
        }
        ENVFIX_TRY_VOID(write_cache_entries(file_, version, std::move(entries)));
        dirty_ = false;
        return {};
    }

private:
    std::filesystem::path file_;  // empty: in memory only
    std::map<std::string, std::pair<std::string, Value>> entries_;
    bool dirty_ = false;
};

}  // namespace envfix::probe
