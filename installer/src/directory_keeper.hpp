#pragma once
// The directories of the wheels an install opened from their archives (wheel_directory.hpp),
// kept for the next install on a thread of their own while this one goes on (torch's is 2 MB to
// encode, hash and write: on a switch's critical path it was 24 ms). It only reads the wheels;
// finish() joins it before anything moves out of them, then keeps the directories of local
// wheels whose sha256 only staging found (installed the first time). Best effort, like the cache.
#include <filesystem>
#include <system_error>
#include <thread>
#include <vector>

#include "envfix/installer/unpacked_cache.hpp"
#include "install_plan.hpp"
#include "unpacked_store.hpp"

namespace envfix::installer {

class DirectoryKeeper {
public:
    DirectoryKeeper(const std::filesystem::path& root, const std::vector<Input>& inputs)
        : root_(root), inputs_(inputs), kept_(inputs.size(), 0) {}
    void start() {
        try {
            thread_ = std::jthread([this] {
                for (size_t i = 0; i < inputs_.size(); ++i)
                    if (!inputs_[i].from_directory)
                        if (auto sha = unpacked::known_sha256(root_, inputs_[i].request.file)) {
                            unpacked::keep_directory(root_, *sha, inputs_[i].wheel);
                            kept_[i] = 1;
                        }
            });
        } catch (const std::system_error&) {  // no thread to be had: finish() keeps what staging hashed
        }
    }
    void finish() {
        if (thread_.joinable()) thread_.join();
        for (size_t i = 0; i < inputs_.size(); ++i)
            if (!inputs_[i].from_directory && !kept_[i] && inputs_[i].sha256)
                unpacked::keep_directory(root_, *inputs_[i].sha256, inputs_[i].wheel);
    }

private:
    const std::filesystem::path& root_;
    const std::vector<Input>& inputs_;
    std::vector<char> kept_;
    std::jthread thread_;
};

}  // namespace envfix::installer
