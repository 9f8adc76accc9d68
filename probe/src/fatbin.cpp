#include "fatbin.hpp"

#include <algorithm>
#include <string>

#include "envfix/common/bytes.hpp"

namespace envfix::probe::fatbin {

namespace {
constexpr uint64_t kContainerHeader = 16;
constexpr uint64_t kEntryHeader = 64;
constexpr uint64_t kMaxHeaderSize = 4096;  // real headers are 16 (container), 64..112 (entry)

Message at(std::string key, std::string_view path, std::string_view section, uint64_t offset) {
    return msg(std::move(key), {{"path", std::string(path)}, {"section", std::string(section)}, {"offset", std::to_string(offset)}});
}

// Headers closer together than this are fetched this much at a time (Walk::ahead): in CUDA 13's
// libcublasLt.so.13, 2 782 containers of 3.2 KB (median) in 140 MB, read from a cold disk in
// 1 560 requests instead of 4 663 (docs/performance.md).
constexpr uint64_t kCloseHeaders = 64u << 10;

// The walk at a header `at` (a container's or an entry's) whose next header of its kind is at
// `next` (of `size` walked bytes): where it lies close and past what was told of, the bytes from
// there on are told of.
void stepping(Walk& out, uint64_t at, uint64_t next, uint64_t size) {
    if (!out.ahead || next >= size || next - at > kCloseHeaders || next < out.ahead_until) return;
    const uint64_t from = std::max(at, out.ahead_until);
    const uint64_t length = std::min(kCloseHeaders, size - from);
    out.ahead(from, length);
    out.ahead_until = from + length;
}

// Next offset >= `from` (8-aligned) holding the container magic, or npos.
uint64_t find_magic(std::string_view b, uint64_t from) {
    for (uint64_t p = (from + 7) & ~uint64_t(7); bytes::fits(b.size(), p, 4); p += 8)
        if (bytes::le_at<uint32_t>(b, p) == kMagic) return p;
    return std::string_view::npos;
}

// Entries of the container whose entry area is [begin, end) of `b`.
void walk_entries(std::string_view b, uint64_t begin, uint64_t end, std::string_view path, std::string_view section,
                  Container& c, Walk& out) {
    uint64_t e = begin;
    while (e < end) {
        if (end - e < kEntryHeader) {
            // Containers are padded to 8 bytes; real leftovers shorter than a header are zeros.
            auto rest = b.substr(static_cast<size_t>(e), static_cast<size_t>(end - e));
            if (rest.find_first_not_of('\0') != std::string_view::npos)
                out.problem(at("binary.problem.entry_truncated", path, section, e));
            return;
        }
        Entry en;
        en.offset = e;
        en.kind = bytes::le_at<uint16_t>(b, e);
        en.header_size = bytes::le_at<uint32_t>(b, e + 4);
        en.payload_size = bytes::le_at<uint64_t>(b, e + 8);
        if (en.kind == 0 && en.header_size == 0 && en.payload_size == 0) return;  // zero padding
        if (en.header_size < kEntryHeader || en.header_size > kMaxHeaderSize || en.header_size > end - e) {
            out.problem(at("binary.problem.bad_entry_header", path, section, e));
            return;
        }
        en.compressed_size = bytes::le_at<uint32_t>(b, e + 0x10);
        en.version_minor = bytes::le_at<uint16_t>(b, e + 0x18);
        en.version_major = bytes::le_at<uint16_t>(b, e + 0x1A);
        en.arch = bytes::le_at<uint32_t>(b, e + 0x1C);
        en.flags = bytes::le_at<uint64_t>(b, e + 0x28);
        en.decompressed_size = bytes::le_at<uint64_t>(b, e + 0x38);
        const uint64_t payload_at = e + en.header_size;
        const uint64_t room = end - payload_at;
        en.truncated = en.payload_size > room;
        en.payload = b.substr(static_cast<size_t>(payload_at), static_cast<size_t>(en.truncated ? room : en.payload_size));
        c.entries.push_back(en);
        if (en.truncated) {
            out.problem(at("binary.problem.entry_truncated", path, section, e));
            return;
        }
        stepping(out, e, payload_at + en.payload_size, b.size());
        e = payload_at + en.payload_size;  // header_size >= 64: always moves forward
    }
}
}  // namespace

std::string_view Entry::compressed_bytes() const {
    if (compressed_size != 0 && compressed_size <= payload.size()) return payload.substr(0, compressed_size);
    return payload;
}

void Walk::problem(Message m) {
    partial = true;
    if (problems.size() < kMaxProblems)
        problems.push_back(std::move(m));
    else
        ++dropped_problems;
}

void walk_section(std::string_view b, std::string_view path, std::string_view section, Walk& out) {
    uint64_t pos = 0;
    while (pos < b.size()) {
        if (!bytes::fits(b.size(), pos, kContainerHeader)) {
            auto rest = b.substr(static_cast<size_t>(pos));
            if (rest.find_first_not_of('\0') != std::string_view::npos)
                out.problem(at("binary.problem.container_truncated", path, section, pos));
            return;
        }
        if (bytes::le_at<uint32_t>(b, pos) != kMagic) {
            // Alignment padding between containers is zeros; anything else is damage, and the
            // walk resumes at the next magic.
            if (bytes::le_at<uint64_t>(b, pos) == 0) {
                pos = (pos + 8) & ~uint64_t(7);
                continue;
            }
            out.problem(at("binary.problem.bad_magic", path, section, pos));
            pos = find_magic(b, pos + 1);
            if (pos == std::string_view::npos) return;
            continue;
        }
        const uint16_t header = bytes::le_at<uint16_t>(b, pos + 6);
        const uint64_t fat = bytes::le_at<uint64_t>(b, pos + 8);
        if (header < kContainerHeader || header > kMaxHeaderSize || header > b.size() - pos) {
            out.problem(at("binary.problem.bad_container_header", path, section, pos));
            pos = find_magic(b, pos + 1);
            if (pos == std::string_view::npos) return;
            continue;
        }
        const uint64_t begin = pos + header;
        const uint64_t room = b.size() - begin;
        Container c;
        c.offset = pos;
        if (fat > room) {
            out.problem(at("binary.problem.container_truncated", path, section, pos));
            walk_entries(b, begin, b.size(), path, section, c, out);
            out.containers.push_back(std::move(c));
            return;
        }
        stepping(out, pos, begin + fat, b.size());
        walk_entries(b, begin, begin + fat, path, section, c, out);
        out.containers.push_back(std::move(c));
        pos = begin + fat;  // header >= 16: always moves forward
    }
}

void scan_file(std::string_view b, std::string_view path, Walk& out) {
    for (uint64_t pos = find_magic(b, 0); pos != std::string_view::npos; pos = find_magic(b, pos + 8)) {
        if (!bytes::fits(b.size(), pos, kContainerHeader)) return;
        const uint16_t version = bytes::le_at<uint16_t>(b, pos + 4);
        const uint16_t header = bytes::le_at<uint16_t>(b, pos + 6);
        const uint64_t fat = bytes::le_at<uint64_t>(b, pos + 8);
        if (version != 1 || header != kContainerHeader || fat > b.size() - pos - header) continue;
        Walk one;
        walk_section(b.substr(static_cast<size_t>(pos), static_cast<size_t>(header + fat)), path, "(scan)", one);
        if (one.containers.empty()) continue;
        for (auto& c : one.containers) {
            c.offset += pos;
            for (auto& e : c.entries) e.offset += pos;
            out.containers.push_back(std::move(c));
        }
        for (auto& m : one.problems) out.problem(std::move(m));
        pos += header + fat - 8;  // the loop adds 8 back
    }
}

}  // namespace envfix::probe::fatbin
