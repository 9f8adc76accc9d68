// Zip archives (wheel/src/zip_central.cpp): the whole-archive reader, and the directory read
// from the archive's last bytes alone, as a wheel still downloading is read (unpack_early.cpp).
// Whatever the bytes: no crash, and where the whole archive reads, the directory read from any
// tail of it (following need_from) is the same directory.
#include <cstdint>

#include "envfix/wheel/zip_read.hpp"
#include "fuzz_check.hpp"

using namespace envfix::wheel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    // The first two bytes pick where the tail starts (a fraction of the archive); the rest is it.
    const size_t cut_hint = static_cast<size_t>(data[0]) << 8 | data[1];
    std::string_view archive = fuzz_text(data + 2, size - 2);
    wheel::ZipLimits limits;
    limits.max_total_size = 1u << 30;  // declared sizes are not allocated, but keep them modest
    auto whole = wheel::read_zip_directory(archive, "fuzz.whl", limits);
    uint64_t at = archive.empty() ? 0 : cut_hint % (archive.size() + 1);
    envfix::Expected<wheel::ZipCentral> tail = wheel::read_zip_central(archive.substr(at), at, "fuzz.whl", limits);
    for (int tries = 0; tail && tail->need_from && tries < 4; ++tries) {
        FUZZ_CHECK(*tail->need_from < at, archive);  // always further back
        at = *tail->need_from;
        tail = wheel::read_zip_central(archive.substr(at), at, "fuzz.whl", limits);
    }
    if (!whole) return 0;
    // The whole archive read: so does its directory from a tail, after at most a few steps back.
    FUZZ_CHECK(tail.has_value(), archive);
    if (tail->need_from) return 0;  // more steps than tried (a ZIP64 record, a long comment)
    FUZZ_CHECK(tail->dir.entries.size() == whole->entries.size(), archive);
    for (size_t i = 0; i < whole->entries.size(); ++i) {
        const auto& a = whole->entries[i];
        const auto& b = tail->dir.entries[i];
        FUZZ_CHECK(a.name == b.name && a.crc32 == b.crc32 && a.size == b.size && a.compressed_size == b.compressed_size &&
                       a.local_header_offset == b.local_header_offset && a.method == b.method,
                   a.name, b.name);
        FUZZ_CHECK(a.data_offset + a.compressed_size <= archive.size(), a.name);
    }
    return 0;
}
