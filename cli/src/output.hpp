#pragma once
// Terminal output helpers for commands: tables, JSON, rendered messages. Only the CLI prints.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "context.hpp"
#include "envfix/common/error.hpp"
#include "envfix/common/message.hpp"

namespace envfix::cli {

using Json = nlohmann::ordered_json;

// Bumped when a JSON document changes incompatibly (docs/json.md).
inline constexpr int kJsonSchemaVersion = 2;

// Display width of UTF-8 text (CJK counts 2), so Chinese tables line up.
size_t display_width(std::string_view s);

class Table {
public:
    explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    std::string str() const;  // aligned columns, header underlined
    bool empty() const { return rows_.empty(); }

private:
    std::vector<std::string> headers_;
    std::vector<std::vector<std::string>> rows_;
};

void print(const std::string& text);  // stdout, newline added
void print(const Message& m);
void print_json(const Json& j);       // stdout, pretty
std::string t(const Message& m);      // render in the user's language
// {"exit_code", "name", "key", "message"}: how every JSON document carries an error.
Json error_json(const Error& e);
// The warnings the command gave, each {"key", "message"} (rendered): with --json they go into the
// document, not stderr.
Json warnings_json(const Context& ctx);

}  // namespace envfix::cli
