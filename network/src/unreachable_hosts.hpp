#pragma once
// Hosts that did not answer (no such host, connection refused, no answer in time): not asked
// again by this command, nor by the next ones for ten minutes, so a machine that cannot reach
// an index pays its timeouts once, not on every command. Kept in the HTTP cache's folder
// (unreachable-hosts-v1.json); --refresh asks again. docs/index.md#hosts-that-do-not-answer.
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace envfix::network::detail {

class UnreachableHosts {
public:
    static constexpr int64_t kRememberSeconds = 600;

    explicit UnreachableHosts(std::filesystem::path file) : file_(std::move(file)) {}

    struct Remembered {
        std::string host;  // "pypi.org:443"
        std::string reason;  // what the last try said
        int64_t minutes = 0;  // how long it is still remembered (at least 1)
    };
    // The host of `url`, where it did not answer within the last ten minutes.
    std::optional<Remembered> remembered(std::string_view url, int64_t now);
    void remember(std::string_view url, const std::string& reason, int64_t now);
    void forget(std::string_view url);  // it answered

private:
    struct Entry {
        int64_t until = 0;
        std::string reason;
    };
    void load();  // once; an unreadable or foreign file is an empty one
    void save();

    std::mutex m_;
    std::filesystem::path file_;
    bool loaded_ = false;
    std::map<std::string, Entry> hosts_;
};

// "scheme://host:port" of a URL, the port filled in for http and https: the key of a host.
std::string host_key(std::string_view url);

}  // namespace envfix::network::detail
