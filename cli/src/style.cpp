#include "style.hpp"

#include "envfix/common/env.hpp"
#include "envfix/common/message.hpp"
#include "envfix/common/platform.hpp"

namespace envfix::cli {

namespace {

struct Style {
    bool out = false;
    bool err = false;
};
Style style;

bool dumb_terminal() { return env::get_or(EnvVar::Term, "") == "dumb"; }

std::string paint(std::string_view text, Tone tone, bool on) {
    if (!on) return std::string(text);
    const char* sgr = tone == Tone::Good ? "\x1b[32m" : tone == Tone::Warn ? "\x1b[33m" : "\x1b[31m";
    return sgr + std::string(text) + "\x1b[0m";
}

}  // namespace

void init_style(const GlobalOptions& opts) {
    // no-color.org: present and not empty disables colour.
    const bool off = opts.no_color || opts.json || env::get(EnvVar::NoColor) || env::get(EnvVar::EnvfixNoColor) || dumb_terminal();
    style.out = !off && platform::stdout_is_terminal();
    style.err = !off && platform::stderr_is_terminal();
}

std::string paint_out(std::string_view text, Tone tone) { return paint(text, tone, style.out); }
std::string paint_err(std::string_view text, Tone tone) { return paint(text, tone, style.err); }
std::string labelled_err(const char* label_key, Tone tone, const std::string& text) {
    return render(msg("cli.labelled", {{"label", paint_err(render(msg(label_key)), tone)}, {"text", text}}));
}

bool cursor_moves() { return !dumb_terminal(); }

}  // namespace envfix::cli
