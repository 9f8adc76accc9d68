#pragma once
// The ZIP reader's shared rules (envfix/resolver/zip_format.hpp), and how the installer streams
// deflate data (private to installer/).
#include "envfix/wheel/zip_format.hpp"

namespace envfix::installer::zipfmt {

using namespace envfix::wheel::zipfmt;

// What streams deflate data: ISA-L where the build has it (ENVFIX_HAVE_ISAL), else zlib. Tests
// run the streaming tests with both, so the zlib path stays tested where ISA-L is built in.
enum class StreamInflater { Default, Zlib };
void set_stream_inflater(StreamInflater which);

}  // namespace envfix::installer::zipfmt
