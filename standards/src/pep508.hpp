#pragma once
// The PEP 508 grammar: packaging's tokenizer and recursive-descent parser (_tokenizer.py,
// _parser.py) ported rule for rule, and the marker tree it builds. Private to the resolver.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/standards/marker.hpp"
#include "envfix/standards/requirement.hpp"

namespace envfix::standards::detail {

struct MarkerOperand {
    bool is_variable = false;
    MarkerVariable variable = MarkerVariable::Extra;  // when is_variable
    std::string value;  // the literal's value otherwise
};

struct MarkerComparison {
    MarkerOperand lhs;
    std::string op;  // "<", "<=", "==", "!=", ">=", ">", "~=", "===", "in", "not in"
    MarkerOperand rhs;
};

// packaging's MarkerList: terms and the operators between them; a parenthesised group is a
// nested list, so to_string() keeps the grouping the source wrote.
struct MarkerElement;
struct MarkerList {
    std::vector<MarkerElement> items;
};
struct MarkerElement {
    enum class Kind : uint8_t { Comparison, Group, And, Or } kind = Kind::Comparison;
    MarkerComparison comparison;  // Kind::Comparison
    MarkerList group;  // Kind::Group
};

struct MarkerTree {
    MarkerList root;
};

struct Pep508Parser {
    static Expected<Requirement> requirement(std::string_view text);
    static Expected<Marker> marker(std::string_view text);
    // Builds a Marker around a parsed tree (requirements parse their marker in place).
    static Marker make_marker(MarkerList list);
};

// Length of the text matched by packaging's unanchored SPECIFIER token at s[pos], 0 if none.
size_t match_specifier(std::string_view s, size_t pos);

// A marker value written back as a quoted literal that parses to the same value.
std::string quote_marker_value(const std::string& value);

}  // namespace envfix::standards::detail
