#pragma once
// The ZIP reader's shared rules: field reads (envfix/common/bytes.hpp), signatures, methods,
// errors; for the directory (zip.hpp) and the entries (zip_read.hpp).
#include <cstdint>
#include <string>
#include <string_view>

#include "envfix/common/bytes.hpp"
#include "envfix/common/error.hpp"

namespace envfix::wheel::zipfmt {

// Out-of-range reads give 0, which no signature or check accepts.
inline uint16_t u16(std::string_view s, size_t p) { return bytes::read_le<uint16_t>(s, p).value_or(0); }
inline uint32_t u32(std::string_view s, size_t p) { return bytes::read_le<uint32_t>(s, p).value_or(0); }
inline uint64_t u64(std::string_view s, size_t p) { return bytes::read_le<uint64_t>(s, p).value_or(0); }

// A local header: its signature, and its size before the name and the extra field.
constexpr uint32_t kLocalSig = 0x04034b50;
constexpr size_t kLocalSize = 30;

// Stored and deflate are read by envfix itself (ISA-L or zlib, libdeflate); bzip2 (12), LZMA (14), zstd (93) and
// xz (95), which Python's zipfile or uv also read, go through libarchive.
inline bool method_builtin(uint16_t m) { return m == 0 || m == 8; }
inline bool method_known(uint16_t m) { return method_builtin(m) || m == 12 || m == 14 || m == 93 || m == 95; }

Unexpected<Error> malformed(std::string_view source, std::string reason);
// What is wrong, from the catalog ("zip.why.*"), in the user's language, for malformed()'s
// message and the metadata reader's.
inline std::string why(std::string key, MessageArgs args = {}) { return render(msg(std::move(key), args)); }

// What streams deflate data: ISA-L where the build has it (ENVFIX_HAVE_ISAL), else zlib. Tests
// run the streaming tests with both, so the zlib path stays tested where ISA-L is built in.
enum class StreamInflater { Default, Zlib };
void set_stream_inflater(StreamInflater which);

}  // namespace envfix::wheel::zipfmt
