// One transfer's bytes written on a thread of its own (transfer_writer.hpp).
#include "transfer_writer.hpp"

#include <algorithm>
#include <cstring>
#include <system_error>

namespace envfix::network::detail {

TransferWriter::TransferWriter(std::FILE* file, std::function<void(uint64_t)> written) : file_(file), written_(std::move(written)) {
    try {
        thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {  // no thread left: write() writes inline
    }
}

TransferWriter::~TransferWriter() { finish(); }

bool TransferWriter::put(const char* data, size_t n) {
    if (std::fwrite(data, 1, n, file_) != n) return false;
    total_ += n;
    if (written_) written_(total_);
    return true;
}

bool TransferWriter::write(const char* data, size_t n) {
    if (!thread_.joinable()) {
        if (!failed_ && !put(data, n)) failed_ = true;
        return !failed_;
    }
    std::unique_lock lock(mu_);
    while (n > 0) {
        // The block being filled is free once fewer than kBlocks wait for the writer.
        cv_.wait(lock, [&] { return failed_ || handed_ - done_ < kBlocks; });
        if (failed_) return false;
        const size_t take = std::min(n, kBlock - filling_);
        char* to = blocks_.get() + (handed_ % kBlocks) * kBlock + filling_;
        lock.unlock();  // the writer reads only blocks handed over
        std::memcpy(to, data, take);
        lock.lock();
        filling_ += take;
        data += take;
        n -= take;
        if (filling_ == kBlock) hand_over();
    }
    return true;
}

void TransferWriter::hand_over() {
    sizes_[handed_ % kBlocks] = filling_;
    ++handed_;
    filling_ = 0;
    cv_.notify_all();
}

void TransferWriter::run() {
    std::unique_lock lock(mu_);
    for (;;) {
        cv_.wait(lock, [&] { return done_ < handed_ || closing_; });
        if (done_ == handed_) return;  // closing, all written
        const size_t slot = done_ % kBlocks, n = sizes_[slot];
        lock.unlock();
        const bool ok = put(blocks_.get() + slot * kBlock, n);
        lock.lock();
        if (!ok) {
            failed_ = true;  // what is still queued is dropped: the transfer fails
            cv_.notify_all();
            return;
        }
        ++done_;
        cv_.notify_all();
    }
}

bool TransferWriter::finish() {
    if (thread_.joinable()) {
        {
            std::lock_guard lock(mu_);
            if (filling_ > 0 && !failed_) hand_over();
            closing_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    return !failed_;
}

}  // namespace envfix::network::detail
