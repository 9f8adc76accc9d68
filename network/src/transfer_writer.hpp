#pragma once
// One transfer's bytes written to its file on a thread of its own, so the one thread that drives
// every transfer (downloader.cpp) only receives and copies: on the GPU machine that thread,
// receiving and writing every byte itself, held four connections to 1.0-1.3 GB/s where four curl
// processes wrote the same files at about 4 GB/s (docs/performance.md, "Downloads").
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace envfix::network::detail {

class TransferWriter {
public:
    static constexpr size_t kBlock = 256u << 10;  // a write() of 256 KiB costs little more per byte
    static constexpr size_t kBlocks = 4;  // 1 MiB per transfer (a cold install: four at once)

    // `written(n)` is told, on the writer's thread, that the first n bytes given are in the file.
    TransferWriter(std::FILE* file, std::function<void(uint64_t)> written);
    ~TransferWriter();  // finish(), its outcome dropped
    TransferWriter(const TransferWriter&) = delete;
    TransferWriter& operator=(const TransferWriter&) = delete;

    // Copies the bytes in, waiting for a free block when the file lags; false once a write failed.
    bool write(const char* data, size_t n);
    // Writes what is left and stops the thread; false when any write failed. Without a thread
    // (none could be started) every write happened inside write().
    bool finish();

private:
    void run();
    void hand_over();  // mu_ held: the block being filled goes to the writer
    bool put(const char* data, size_t n);  // into the file, then `written_` told (one writer at a time)

    std::FILE* file_;
    std::function<void(uint64_t)> written_;
    std::unique_ptr<char[]> blocks_{new char[kBlocks * kBlock]};
    size_t sizes_[kBlocks] = {};
    std::mutex mu_;
    std::condition_variable cv_;
    uint64_t handed_ = 0;  // blocks handed over, in order
    uint64_t done_ = 0;  // of those, written
    size_t filling_ = 0;  // bytes in block handed_ % kBlocks
    uint64_t total_ = 0;  // bytes written
    bool closing_ = false;
    bool failed_ = false;
    std::thread thread_;
};

}  // namespace envfix::network::detail
