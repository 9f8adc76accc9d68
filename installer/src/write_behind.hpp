#pragma once
// A large entry's hashing and its writing each on a thread of their own, behind its inflating
// (stager.cpp): one after another on one thread, SHA-256 and write() made a 542 MB library's
// stream about three times slower than inflating it alone (docs/performance.md, "Hashing and
// writing behind the inflate"). The inflated bytes go through a ring of slots that both read.
// A ring of 1 MiB is enough behind one thread inflating; behind the parallel inflater's workers
// it fills at every hiccup of either thread and the two take turns idling (on the GPU machine,
// -vv: libtorch_cpu.so's pusher waits 440 ms for room while hashing is busy 420 ms of 860), so a
// stream lent workers widens it to 8 MiB (docs/performance.md).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "envfix/common/error.hpp"
#include "file_ops.hpp"
#include "record_hash.hpp"

namespace envfix::installer {

class HashWriteBehind {
public:
    // Entries from this size are worth two threads; at most kMaxAtOnce in the whole process (the
    // unpacking runs stage side by side), each holding kSlots × kSlot bytes (8 MiB in all), or
    // kWideSlots × kSlot once widened (only streams lent workers, a few at a time).
    static constexpr uint64_t kFrom = 16u << 20;
    static constexpr size_t kSlot = 256u << 10;
    static constexpr size_t kSlots = 4;
    static constexpr size_t kWideSlots = 32;
    static constexpr int kMaxAtOnce = 8;

    // A place among the kMaxAtOnce, or nothing (the entry is hashed and written inline).
    static std::unique_ptr<HashWriteBehind> try_start(RecordHasher& hasher, fileops::OutFile& file);
    ~HashWriteBehind();  // stops both threads; what they had not done is dropped
    HashWriteBehind(const HashWriteBehind&) = delete;
    HashWriteBehind& operator=(const HashWriteBehind&) = delete;

    // Copies the bytes into the slot being filled and hands it over when full; fails with the
    // writer's error (disk full ...) once it had one.
    Expected<void> push(std::string_view bytes);
    // Hands over the rest and waits until everything is hashed and written.
    Expected<void> finish();
    // Up to kWideSlots slots in flight from now on (their memory taken as they are first needed):
    // for a stream whose bytes come faster than one thread inflates them.
    void widen();

    // Where the time went (-vv): push() waiting for a free slot, the two threads busy.
    struct Times {
        std::chrono::nanoseconds waited{0}, hashing{0}, writing{0};
        size_t buffers = 0;  // slot buffers made: at most kSlots, or kWideSlots once widened
    };
    Times times() const;  // after finish()

private:
    HashWriteBehind(RecordHasher& hasher, fileops::OutFile& file);
    void run(int which);  // 0: hashes, 1: writes
    void publish();
    bool close_and_join();  // false when the writer failed

    // A free buffer for the slot published_ names (push()'s thread only): one both threads are
    // done with, else a new one; the slots in flight are never more than capacity_.
    char* take_buffer();

    RecordHasher& hasher_;
    fileops::OutFile& file_;
    // Slot n (the nth handed over) is buffers_[n % kWideSlots] with sizes_[n % kWideSlots] bytes.
    char* buffers_[kWideSlots] = {};
    size_t sizes_[kWideSlots] = {};
    std::vector<std::unique_ptr<char[]>> owned_;  // every buffer made, push()'s thread only
    std::vector<char*> free_;                      // of those, done by both (push()'s thread only)
    uint64_t reclaimed_ = 0;                       // slots whose buffers went back to free_
    mutable std::mutex mu_;
    // Each side woken only by what it waits for: the two threads by a slot handed over (or the
    // end), push() by a slot both have done (or an error). One for all woke three threads a slot.
    std::condition_variable work_cv_, room_cv_;
    uint64_t published_ = 0;    // slots handed over, in order
    uint64_t done_[2] = {0, 0};  // of those, hashed and written
    std::chrono::nanoseconds busy_[2] = {};  // each thread's, under mu_
    std::chrono::nanoseconds waited_{0};     // push()'s, its thread only
    size_t capacity_ = kSlots;  // slots in flight at most, under mu_
    size_t filling_ = 0;        // bytes in slot published_
    bool closing_ = false;      // nothing more comes
    bool abandon_ = false;      // stop without doing the rest
    std::optional<Error> error_;
    std::thread threads_[2];
    static std::atomic<int> running_;
};

// A streamed entry's bytes hashed and written: behind the inflating when asked and a place among
// HashWriteBehind::kMaxAtOnce is free, else inline on the caller's thread.
class HashedOutput {
public:
    HashedOutput(RecordHasher& hasher, fileops::OutFile& file, bool behind)
        : hasher_(hasher), file_(file), behind_(behind ? HashWriteBehind::try_start(hasher, file) : nullptr) {}
    Expected<void> push(std::string_view bytes) {
        size_ += bytes.size();
        if (behind_) return behind_->push(bytes);
        hasher_.update(bytes);
        return file_.write(bytes);
    }
    // A deeper ring behind a stream lent workers (HashWriteBehind::widen); nothing where inline.
    void widen() {
        if (behind_) behind_->widen();
    }
    // Everything hashed and written (the threads behind, if any, ended).
    Expected<void> finish() {
        if (!behind_) return {};
        auto done = behind_->finish();
        times_ = behind_->times();
        behind_.reset();
        return done;
    }
    uint64_t size() const { return size_; }
    // The threads' times once finished (zero where it ran inline).
    const HashWriteBehind::Times& times() const { return times_; }

private:
    RecordHasher& hasher_;
    fileops::OutFile& file_;
    std::unique_ptr<HashWriteBehind> behind_;
    HashWriteBehind::Times times_;
    uint64_t size_ = 0;
};

}  // namespace envfix::installer
