#pragma once
// Colour where it helps: doctor's verdict and status column, the warning and error prefixes, the
// progress bars. Only where it is shown: off with --no-color, NO_COLOR or ENVFIX_NO_COLOR (set to
// anything), TERM=dumb, --json, or a stream that is not a terminal. TERM=dumb also gets no cursor
// movement: progress is not redrawn in place.
#include <string>
#include <string_view>

#include "context.hpp"

namespace envfix::cli {

enum class Tone { Good, Warn, Bad };

// Once the command line is parsed (run.cpp).
void init_style(const GlobalOptions& opts);
// `text` coloured for stdout / stderr where colour is on there, else as it is.
std::string paint_out(std::string_view text, Tone tone);
std::string paint_err(std::string_view text, Tone tone);
// A stderr line's text after its label ("cli.label.error": "error: …", "错误：…"), the label
// painted.
std::string labelled_err(const char* label_key, Tone tone, const std::string& text);
// Whether progress may move the cursor (a terminal other than TERM=dumb).
bool cursor_moves();

}  // namespace envfix::cli
