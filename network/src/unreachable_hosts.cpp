// The hosts that did not answer, remembered for a while (unreachable_hosts.hpp).
#include "unreachable_hosts.hpp"

#include <nlohmann/json.hpp>

#include "envfix/common/fs.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network::detail {

namespace {

constexpr uint64_t kMaxFileBytes = 64 * 1024;  // a few hosts; anything larger is not ours
constexpr size_t kMaxHosts = 64;

}  // namespace

std::string host_key(std::string_view url) {
    auto p = split_url(url);
    std::string port = p.port;
    if (port.empty()) port = p.scheme == "http" ? "80" : p.scheme == "https" ? "443" : "";
    return p.scheme + "://" + p.host + (port.empty() ? "" : ":" + port);
}

void UnreachableHosts::load() {
    if (loaded_) return;
    loaded_ = true;
    if (file_.empty()) return;
    auto text = fs::read_file(file_, kMaxFileBytes);
    if (!text) return;
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object() || j.value("version", 0) != 1 || !j.contains("hosts") || !j["hosts"].is_object()) return;
    for (const auto& [host, e] : j["hosts"].items()) {
        if (hosts_.size() == kMaxHosts) break;
        if (!e.is_object() || !e.contains("until") || !e["until"].is_number_integer() || !e.contains("reason") || !e["reason"].is_string())
            continue;
        hosts_[host] = {e["until"].get<int64_t>(), e["reason"].get<std::string>()};
    }
}

void UnreachableHosts::save() {
    if (file_.empty()) return;
    nlohmann::json hosts = nlohmann::json::object();
    for (const auto& [host, e] : hosts_) hosts[host] = {{"until", e.until}, {"reason", e.reason}};
    std::error_code ec;
    std::filesystem::create_directories(file_.parent_path(), ec);
    // A cache: a lost write costs one more wait on that host.
    (void)fs::write_file_atomic(file_, nlohmann::json{{"version", 1}, {"hosts", hosts}}.dump(), fs::Sync::Cache);
}

std::optional<UnreachableHosts::Remembered> UnreachableHosts::remembered(std::string_view url, int64_t now) {
    std::lock_guard lock(m_);
    load();
    auto key = host_key(url);
    auto it = hosts_.find(key);
    if (it == hosts_.end() || it->second.until <= now) return std::nullopt;
    return Remembered{key, it->second.reason, std::max<int64_t>(1, (it->second.until - now + 59) / 60)};
}

void UnreachableHosts::remember(std::string_view url, const std::string& reason, int64_t now) {
    std::lock_guard lock(m_);
    load();
    for (auto it = hosts_.begin(); it != hosts_.end();) it = it->second.until <= now ? hosts_.erase(it) : std::next(it);
    if (hosts_.size() >= kMaxHosts) return;
    hosts_[host_key(url)] = {now + kRememberSeconds, reason};
    save();
}

void UnreachableHosts::forget(std::string_view url) {
    std::lock_guard lock(m_);
    load();
    if (hosts_.erase(host_key(url))) save();
}

}  // namespace envfix::network::detail
