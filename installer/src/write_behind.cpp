// Hashing and writing behind the inflate (write_behind.hpp).
#include "write_behind.hpp"

#include <algorithm>
#include <cstring>

namespace envfix::installer {

std::atomic<int> HashWriteBehind::running_{0};

std::unique_ptr<HashWriteBehind> HashWriteBehind::try_start(RecordHasher& hasher, fileops::OutFile& file) {
    if (running_.fetch_add(1) >= kMaxAtOnce) {
        running_.fetch_sub(1);
        return nullptr;
    }
    try {
        return std::unique_ptr<HashWriteBehind>(new HashWriteBehind(hasher, file));
    } catch (...) {  // no thread or memory left: inline, as before
        running_.fetch_sub(1);
        return nullptr;
    }
}

HashWriteBehind::HashWriteBehind(RecordHasher& hasher, fileops::OutFile& file) : hasher_(hasher), file_(file) {
    threads_[0] = std::thread([this] { run(0); });
    try {
        threads_[1] = std::thread([this] { run(1); });
    } catch (...) {
        close_and_join();
        throw;
    }
}

HashWriteBehind::~HashWriteBehind() {
    {
        std::lock_guard lock(mu_);
        abandon_ = true;  // not finished: nothing more is hashed or written
    }
    close_and_join();
    running_.fetch_sub(1);
}

void HashWriteBehind::run(int which) {
    std::unique_lock lock(mu_);
    for (;;) {
        work_cv_.wait(lock, [&] { return abandon_ || closing_ || done_[which] < published_; });
        if (abandon_ || done_[which] == published_) return;  // abandoned, or closing with all done
        const size_t slot = done_[which] % kWideSlots;
        const bool skip = error_.has_value();
        const std::string_view bytes(buffers_[slot], sizes_[slot]);
        lock.unlock();
        const auto began = std::chrono::steady_clock::now();
        std::optional<Error> e;
        if (skip) {
        } else if (which == 0) {
            hasher_.update(bytes);
        } else if (auto w = file_.write(bytes); !w) {
            e = std::move(w).error();
        }
        const auto took = std::chrono::steady_clock::now() - began;
        lock.lock();
        busy_[which] += took;
        const bool failed = e && !error_;
        if (failed) error_ = std::move(e);
        ++done_[which];
        // A slot is free once both have done it: this one, where the other is as far or further.
        if (failed || done_[which] <= done_[1 - which]) room_cv_.notify_one();
    }
}

void HashWriteBehind::publish() {
    std::lock_guard lock(mu_);
    sizes_[published_ % kWideSlots] = filling_;
    ++published_;
    filling_ = 0;
    work_cv_.notify_all();
}

Expected<void> HashWriteBehind::push(std::string_view bytes) {
    while (!bytes.empty()) {
        if (filling_ == 0) {  // the slot must have been hashed and written
            std::unique_lock lock(mu_);
            auto free = [&] { return error_.has_value() || published_ - std::min(done_[0], done_[1]) < capacity_; };
            if (!free()) {
                const auto began = std::chrono::steady_clock::now();
                room_cv_.wait(lock, free);
                waited_ += std::chrono::steady_clock::now() - began;
            }
            if (error_) return unexpected(*error_);
            // The slots both threads have done give their buffers back.
            for (const uint64_t both = std::min(done_[0], done_[1]); reclaimed_ < both; ++reclaimed_)
                free_.push_back(buffers_[reclaimed_ % kWideSlots]);
            buffers_[published_ % kWideSlots] = take_buffer();  // only this thread moves published_
        }
        char* slot = buffers_[published_ % kWideSlots];
        const size_t n = std::min(bytes.size(), kSlot - filling_);
        std::memcpy(slot + filling_, bytes.data(), n);
        filling_ += n;
        bytes.remove_prefix(n);
        if (filling_ == kSlot) publish();
    }
    return {};
}

char* HashWriteBehind::take_buffer() {
    if (!free_.empty()) {
        char* b = free_.back();
        free_.pop_back();
        return b;
    }
    owned_.push_back(std::make_unique_for_overwrite<char[]>(kSlot));
    return owned_.back().get();
}

void HashWriteBehind::widen() {
    std::lock_guard lock(mu_);
    capacity_ = kWideSlots;
}

bool HashWriteBehind::close_and_join() {
    {
        std::lock_guard lock(mu_);
        closing_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    std::lock_guard lock(mu_);
    return !error_;
}

Expected<void> HashWriteBehind::finish() {
    if (filling_ > 0) publish();
    if (!close_and_join()) return unexpected(*error_);
    return {};
}

HashWriteBehind::Times HashWriteBehind::times() const {
    std::lock_guard lock(mu_);
    return {waited_, busy_[0], busy_[1], owned_.size()};
}

}  // namespace envfix::installer
