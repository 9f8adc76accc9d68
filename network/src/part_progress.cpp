// What of a file fetched in ranges is written so far (downloader.hpp).
#include "envfix/network/downloader.hpp"

#include <algorithm>

namespace envfix::network {

std::vector<PartProgress::Range> PartProgress::ranges() const {
    std::lock_guard lock(mu_);
    return ranges_;
}

bool PartProgress::covered(uint64_t from, uint64_t n) const {
    const uint64_t to = from + n;
    // The ranges are few (one per connection, and the tail): a scan per question.
    while (from < to) {
        bool moved = false;
        for (const auto& r : ranges_)
            if (from >= r.at && from < r.at + r.written) {
                from = r.at + r.written;
                moved = true;
            }
        if (!moved) return false;
    }
    return true;
}

bool PartProgress::wait_for(uint64_t from, uint64_t n, const std::atomic<bool>* stop) {
    if (n == 0) return !given_up();
    if (from + n > total_ || from + n < from) return false;
    auto stopped = [&] { return gone_ || (stop && stop->load()); };
    std::unique_lock lock(mu_);
    if (!stopped() && covered(from, n)) return true;
    waiters_.emplace_back(from, n);
    cv_.wait(lock, [&] { return stopped() || covered(from, n); });
    waiters_.erase(std::find(waiters_.begin(), waiters_.end(), std::pair{from, n}));
    return !stopped();
}

bool PartProgress::has(uint64_t from, uint64_t n) const {
    if (from + n > total_ || from + n < from) return false;
    std::lock_guard lock(mu_);
    return !gone_ && covered(from, n);
}

void PartProgress::wake() {
    { std::lock_guard lock(mu_); }  // a reader between its check and its wait gets the notification
    cv_.notify_all();
}

void PartProgress::advance(size_t range, uint64_t written) {
    std::lock_guard lock(mu_);
    if (range >= ranges_.size()) return;
    ranges_[range].written = std::min(written, ranges_[range].length);
    // Only a reader whose bytes are all there now is woken: a transfer calls this for every
    // chunk it writes (16 KiB), a reader asks for 128 KiB at a time.
    for (const auto& [from, n] : waiters_)
        if (covered(from, n)) {
            cv_.notify_all();
            break;
        }
}

void PartProgress::give_up() {
    {
        std::lock_guard lock(mu_);
        gone_ = true;
    }
    cv_.notify_all();
}

bool PartProgress::given_up() const {
    std::lock_guard lock(mu_);
    return gone_;
}

}  // namespace envfix::network
