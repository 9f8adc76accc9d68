#pragma once
// The message layer: every user-facing sentence is a Message (a catalog key plus named
// arguments). Libraries build Messages; the CLI renders them in the user's language.
// Catalogs live in common/messages/<area>.cpp, one table per area, English and Chinese side
// by side, so a translation never touches the logic.
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace envfix {

enum class Lang { En, Zh };

struct Message {
    std::string key;
    std::vector<std::pair<std::string, std::string>> args;

    // Value of a named argument ("" when absent).
    std::string_view arg(std::string_view name) const;
    Message& with(std::string name, std::string value) {
        args.emplace_back(std::move(name), std::move(value));
        return *this;
    }
    bool empty() const { return key.empty(); }
};

using MessageArgs = std::initializer_list<std::pair<std::string, std::string>>;
inline Message msg(std::string key, MessageArgs args = {}) {
    return Message{std::move(key), {args.begin(), args.end()}};
}

struct CatalogEntry {
    const char* key;
    const char* en;
    const char* zh;  // nullptr: not translated yet, English is used
};

// Renders with the catalog template of `lang`: "{name}" is replaced by the argument,
// "{{" and "}}" are literal braces. An unknown key renders as "key(arg=value, ...)".
std::string render(const Message& m, Lang lang);
std::string render(const Message& m);  // in the process language (set_language)

void set_language(Lang lang);
Lang language();
// ENVFIX_LANG, then LC_ALL / LC_MESSAGES / LANG: "zh*" selects Chinese.
Lang language_from_environment();

// Every catalog entry, for tests (both languages present, same placeholders).
std::vector<CatalogEntry> all_catalog_entries();

}  // namespace envfix
