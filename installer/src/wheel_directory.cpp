#include "wheel_directory.hpp"

#include "envfix/common/bytes.hpp"
#include "envfix/common/hash.hpp"
#include "tx_internal.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <system_error>

namespace envfix::installer {

namespace {

constexpr std::string_view kHead = "envfix-wheel-directory\n";
constexpr size_t kDigest = 64;  // the sha256 (hex) of everything before it, at the end

// Little-endian integers and length-prefixed strings: names may hold any byte but '/'-rules'.
class Out {
public:
    void u8(uint8_t v) { s_.push_back(static_cast<char>(v)); }
    void u16(uint16_t v) { put(v, 2); }
    void u32(uint32_t v) { put(v, 4); }
    void u64(uint64_t v) { put(v, 8); }
    void str(std::string_view v) {
        u32(static_cast<uint32_t>(v.size()));
        s_.append(v);
    }
    std::string& text() { return s_; }
    void reserve(size_t n) { s_.reserve(n); }

private:
    void put(uint64_t v, int n) { bytes::put_le(s_, v, n); }
    std::string s_;
};

class In {
public:
    explicit In(std::string_view b) : b_(b) {}
    bool ok() const { return ok_; }
    bool at_end() const { return at_ == b_.size(); }
    uint8_t u8() { return static_cast<uint8_t>(get(1)); }
    uint16_t u16() { return static_cast<uint16_t>(get(2)); }
    uint32_t u32() { return static_cast<uint32_t>(get(4)); }
    uint64_t u64() { return get(8); }
    std::string str() {
        const uint32_t n = u32();
        if (!ok_ || n > b_.size() - at_) return fail(), std::string();
        std::string v(b_.substr(at_, n));
        at_ += n;
        return v;
    }
    // Past n bytes, or a string, without reading them (the offsets of a long list's pieces).
    void skip(size_t n) {
        if (!ok_ || n > b_.size() - at_) return fail();
        at_ += n;
    }
    void skip_str() { skip(u32()); }
    size_t pos() const { return at_; }
    // The same bytes read from `at` on (a piece of a list, decoded on another thread).
    In from(size_t at) const {
        In o(b_);
        o.at_ = at;
        o.ok_ = ok_ && at <= b_.size();
        return o;
    }
    // A count of items each at least `min_bytes` long: one that could not fit is damage, not a
    // reason to reserve gigabytes.
    uint32_t count(size_t min_bytes) {
        const uint32_t n = u32();
        if (ok_ && static_cast<uint64_t>(n) * min_bytes > b_.size() - at_) fail();
        return ok_ ? n : 0;
    }

private:
    uint64_t get(int n) {
        if (!ok_ || static_cast<size_t>(n) > b_.size() - at_) return fail(), 0;
        uint64_t v = 0;
        for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b_[at_ + i])) << (8 * i);
        at_ += static_cast<size_t>(n);
        return v;
    }
    void fail() { ok_ = false; }
    std::string_view b_;
    size_t at_ = 0;
    bool ok_ = true;
};

}  // namespace

std::string encode_wheel_directory(const WheelFile& w, std::string_view metadata_text, std::string_view sha256) {
    // Its size first: torch's is 2.4 MB, and growing by doubling would hold twice that at once,
    // at a switch's memory peak (the opening, where this runs beside it).
    size_t size = kHead.size() + 256 + sha256.size() + w.name.filename.size() + w.dist_info.size() + w.data_dir.size() +
                  w.wheel_version.size() + metadata_text.size() + w.entry_points.size() + kDigest;
    for (const auto& m : w.warnings) {
        size += 8 + m.key.size();
        for (const auto& [k, v] : m.args) size += 8 + k.size() + v.size();
    }
    for (const auto& e : w.zip.entries) size += 4 + e.name.size() + 2 + 2 + 4 + 8 * 4 + 4 + 1 + 4;  // with its record_row
    for (const auto& r : w.record) size += 12 + r.path.size() + r.hash_algorithm.size() + r.hash_digest.size() + 9;
    size += 4 * w.files.size();
    Out o;
    o.reserve(size);
    o.text().append(kHead);
    o.u32(kWheelDirectoryVersion);
    o.str(sha256);
    o.str(w.name.filename);
    o.str(w.dist_info);
    o.str(w.data_dir);
    o.str(w.wheel_version);
    o.u8(w.root_is_purelib ? 1 : 0);
    o.str(metadata_text);
    o.str(w.entry_points);
    o.u32(static_cast<uint32_t>(w.warnings.size()));
    for (const auto& m : w.warnings) {
        o.str(m.key);
        o.u32(static_cast<uint32_t>(m.args.size()));
        for (const auto& [k, v] : m.args) {
            o.str(k);
            o.str(v);
        }
    }
    o.u64(w.zip.total_size);
    o.u32(static_cast<uint32_t>(w.zip.entries.size()));
    for (const auto& e : w.zip.entries) {
        o.str(e.name);
        o.u16(e.method);
        o.u16(e.flags);
        o.u32(e.crc32);
        o.u64(e.compressed_size);
        o.u64(e.size);
        o.u64(e.local_header_offset);
        o.u64(e.data_offset);
        o.u32(e.external_attr);
        o.u8(e.made_by_host);
    }
    o.u32(static_cast<uint32_t>(w.record.size()));
    for (const auto& r : w.record) {
        o.str(r.path);
        o.str(r.hash_algorithm);
        o.str(r.hash_digest);
        o.u8(r.size ? 1 : 0);
        o.u64(r.size.value_or(0));
    }
    for (int row : w.record_row) o.u32(static_cast<uint32_t>(row));  // one per entry; -1 wraps
    o.u32(static_cast<uint32_t>(w.files.size()));
    for (size_t f : w.files) o.u32(static_cast<uint32_t>(f));
    // A flipped byte in a file written without fsync decodes as nothing, not as other paths.
    o.text() += sha256_hex(o.text());
    return std::move(o.text());
}

namespace {

// A list of `count` items, read by `one(in, index)`: where it is long (torch's 12 000 entries and
// RECORD rows), its pieces' offsets found by `skip_one` first, then the pieces read on several
// threads: allocating each name and digest was the longest piece of a warm install's opening of
// its wheels. False on damage: a piece that does not end where the next begins, or a read past
// the end.
template <class One, class SkipOne>
bool read_list(In& in, size_t count, const One& one, const SkipOne& skip_one) {
    constexpr size_t kPiece = 2048;
    if (count < 2 * kPiece) {
        for (size_t k = 0; k < count && in.ok(); ++k) one(in, k);
        return in.ok();
    }
    std::vector<size_t> starts;
    In scan = in;
    for (size_t k = 0; k < count && scan.ok(); ++k) {
        if (k % kPiece == 0) starts.push_back(scan.pos());
        skip_one(scan);
    }
    if (!scan.ok()) return false;
    starts.push_back(scan.pos());
    std::atomic<bool> ok{true};
    tx::parallel_for(starts.size() - 1, [&](size_t p) {
        In part = in.from(starts[p]);
        for (size_t k = p * kPiece; k < std::min(count, (p + 1) * kPiece); ++k) one(part, k);
        if (!part.ok() || part.pos() != starts[p + 1]) ok = false;
    }, 1);
    in = in.from(starts.back());
    return ok;
}

// The body after its seal is checked (or while it is: decoding bounds-checks every read).
std::optional<WheelFile> decode_body(std::string_view body, std::string_view sha256, const std::filesystem::path& file) {
    In in(body.substr(kHead.size()));
    if (in.u32() != kWheelDirectoryVersion || in.str() != sha256) return std::nullopt;
    WheelFile w;
    w.path = file;
    auto name = standards::parse_wheel_name(file.filename().string());
    if (!name || in.str() != name->filename) return std::nullopt;
    w.name = std::move(*name);
    w.dist_info = in.str();
    w.data_dir = in.str();
    w.wheel_version = in.str();
    w.root_is_purelib = in.u8() != 0;
    const std::string metadata_text = in.str();
    w.entry_points = in.str();
    for (uint32_t n = in.count(8); n-- > 0 && in.ok();) {
        Message m;
        m.key = in.str();
        for (uint32_t a = in.count(8); a-- > 0 && in.ok();) {
            auto k = in.str();
            m.args.emplace_back(std::move(k), in.str());
        }
        w.warnings.push_back(std::move(m));
    }
    w.zip.total_size = in.u64();
    const uint32_t entries = in.count(4 + 2 + 2 + 4 + 8 * 4 + 4 + 1);
    w.zip.entries.resize(entries);
    // Each entry's name checked as open_wheel checks it, where it is read.
    std::atomic<bool> names_safe{true};
    const bool entries_read = read_list(
        in, entries,
        [&](In& at, size_t k) {
            auto& e = w.zip.entries[k];
            e.name = at.str();
            e.method = at.u16();
            e.flags = at.u16();
            e.crc32 = at.u32();
            e.compressed_size = at.u64();
            e.size = at.u64();
            e.local_header_offset = at.u64();
            e.data_offset = at.u64();
            e.external_attr = at.u32();
            e.made_by_host = at.u8();
            if (at.ok() && (unsafe_entry_name(e.name) || e.is_symlink() || e.is_special())) names_safe = false;
        },
        [](In& at) {
            at.skip_str();
            at.skip(2 + 2 + 4 + 8 * 4 + 4 + 1);
        });
    if (!entries_read || !names_safe) return std::nullopt;
    w.record.resize(in.count(4 * 3 + 1 + 8));
    const bool rows_read = read_list(
        in, w.record.size(),
        [&](In& at, size_t k) {
            auto& r = w.record[k];
            r.path = at.str();
            r.hash_algorithm = at.str();
            r.hash_digest = at.str();
            const bool has_size = at.u8() != 0;
            const uint64_t size = at.u64();
            if (has_size) r.size = size;
        },
        [](In& at) {
            at.skip_str();
            at.skip_str();
            at.skip_str();
            at.skip(1 + 8);
        });
    if (!rows_read) return std::nullopt;
    w.record_row.resize(entries);
    for (auto& row : w.record_row) {
        row = static_cast<int>(in.u32());
        if (row < -1 || (row >= 0 && static_cast<size_t>(row) >= w.record.size())) return std::nullopt;
    }
    w.files.resize(in.count(4));
    for (auto& f : w.files) f = in.u32();
    if (!in.ok() || !in.at_end()) return std::nullopt;
    // What open_wheel checked, checked again (cheap beside reading the archive): a directory that
    // decodes is one open_wheel could have given, whatever happened to the file.
    if (!w.dist_info.ends_with(".dist-info") || w.dist_info.find('/') != std::string::npos ||
        !wheel_folder_matches(std::string_view(w.dist_info).substr(0, w.dist_info.size() - 10), w.name))
        return std::nullopt;
    if (!w.data_dir.empty() && (!w.data_dir.ends_with(".data") || w.data_dir.find('/') != std::string::npos ||
                                !wheel_folder_matches(std::string_view(w.data_dir).substr(0, w.data_dir.size() - 5), w.name)))
        return std::nullopt;
    for (size_t k = 0; k < w.files.size(); ++k) {
        const size_t f = w.files[k];
        if (f >= entries || (k > 0 && f <= w.files[k - 1]) || w.zip.entries[f].is_directory() || w.record_row[f] < 0) return std::nullopt;
        const auto& row = w.record[static_cast<size_t>(w.record_row[f])];
        if (!record_hash_supported(row.hash_algorithm) || row.hash_digest.empty() || (row.size && *row.size != w.zip.entries[f].size))
            return std::nullopt;
    }
    auto meta = standards::parse_core_metadata(metadata_text, w.source() + ":" + w.dist_info + "/METADATA");
    if (!meta) return std::nullopt;
    w.metadata = std::move(*meta);
    w.metadata_text = metadata_text;
    w.lazy = std::make_shared<WheelFile::LazyMap>();
    w.lazy->path = file;
    return w;
}

}  // namespace

std::optional<WheelFile> decode_wheel_directory(std::string_view bytes, std::string_view sha256, const std::filesystem::path& file) {
    if (!bytes.starts_with(kHead) || bytes.size() < kHead.size() + kDigest) return std::nullopt;
    const auto body = bytes.substr(0, bytes.size() - kDigest);
    auto sealed = [&] { return sha256_hex(body) == bytes.substr(body.size()); };
    // torch's directory (2.7 MB): hashed on another thread while it is decoded, which is the
    // longest piece of a warm install's opening of its wheels.
    std::future<bool> checking;
    if (body.size() >= (256u << 10)) {
        try {
            checking = std::async(std::launch::async, sealed);
        } catch (const std::system_error&) {  // no thread to be had: checked here
        }
    }
    auto w = decode_body(body, sha256, file);
    if (!(checking.valid() ? checking.get() : sealed())) return std::nullopt;
    return w;
}

}  // namespace envfix::installer
