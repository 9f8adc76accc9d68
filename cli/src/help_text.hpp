#pragma once
// Help texts of commands and options come from the message catalog (common/messages/help.cpp),
// rendered in the language run.cpp chose before the commands are defined, so `--help` speaks the
// user's language; the man page and the completion scripts are written in English.
#include <string>

#include "envfix/common/message.hpp"

namespace envfix::cli {

inline std::string help_text(const char* key) { return render(msg(key)); }

}  // namespace envfix::cli
