#include "envfix/standards/marker.hpp"

#include <algorithm>

#include "chars.hpp"
#include "envfix/probe/python_facts.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/specifier.hpp"
#include "fail_with.hpp"
#include "pep508.hpp"

namespace envfix::standards {

using detail::MarkerComparison;
using detail::MarkerElement;
using detail::MarkerList;
using detail::MarkerOperand;

std::string_view marker_variable_name(MarkerVariable v) {
    switch (v) {
        case MarkerVariable::PythonVersion: return "python_version";
        case MarkerVariable::PythonFullVersion: return "python_full_version";
        case MarkerVariable::OsName: return "os_name";
        case MarkerVariable::SysPlatform: return "sys_platform";
        case MarkerVariable::PlatformRelease: return "platform_release";
        case MarkerVariable::PlatformSystem: return "platform_system";
        case MarkerVariable::PlatformVersion: return "platform_version";
        case MarkerVariable::PlatformMachine: return "platform_machine";
        case MarkerVariable::PlatformPythonImplementation: return "platform_python_implementation";
        case MarkerVariable::ImplementationName: return "implementation_name";
        case MarkerVariable::ImplementationVersion: return "implementation_version";
        case MarkerVariable::Extra: return "extra";
    }
    return "";
}

std::string& MarkerEnvironment::get(MarkerVariable v) {
    switch (v) {
        case MarkerVariable::PythonVersion: return python_version;
        case MarkerVariable::PythonFullVersion: return python_full_version;
        case MarkerVariable::OsName: return os_name;
        case MarkerVariable::SysPlatform: return sys_platform;
        case MarkerVariable::PlatformRelease: return platform_release;
        case MarkerVariable::PlatformSystem: return platform_system;
        case MarkerVariable::PlatformVersion: return platform_version;
        case MarkerVariable::PlatformMachine: return platform_machine;
        case MarkerVariable::PlatformPythonImplementation: return platform_python_implementation;
        case MarkerVariable::ImplementationName: return implementation_name;
        case MarkerVariable::ImplementationVersion: return implementation_version;
        case MarkerVariable::Extra: break;
    }
    return extra;
}

const std::string& MarkerEnvironment::get(MarkerVariable v) const { return const_cast<MarkerEnvironment*>(this)->get(v); }

MarkerEnvironment marker_environment(const probe::PythonFacts& f) {
    MarkerEnvironment env;
    env.python_full_version = f.version;
    // Untagged CPython builds report "3.12.0+", which is not a version; packaging repairs it so.
    if (!env.python_full_version.empty() && env.python_full_version.back() == '+') env.python_full_version += "local";
    if (f.major > 0) {
        env.python_version = std::to_string(f.major) + "." + std::to_string(f.minor);
    } else {
        size_t dot = f.version.find('.');
        size_t dot2 = dot == std::string::npos ? dot : f.version.find_first_not_of("0123456789", dot + 1);
        env.python_version = f.version.substr(0, dot2);
    }
    env.os_name = f.os_name;
    env.sys_platform = f.sys_platform;
    env.platform_release = f.platform_release;
    env.platform_system = f.platform_system;
    env.platform_version = f.platform_version;
    env.platform_machine = f.platform_machine;
    env.platform_python_implementation = f.platform_python_implementation;
    env.implementation_name = f.implementation_name;
    env.implementation_version = f.implementation_version;
    return env;
}

Expected<Marker> Marker::parse(std::string_view text) { return detail::Pep508Parser::marker(text); }

namespace {

std::string operand_text(const MarkerOperand& o) {
    return o.is_variable ? std::string(marker_variable_name(o.variable)) : detail::quote_marker_value(o.value);
}

std::string comparison_text(const MarkerComparison& c) { return operand_text(c.lhs) + " " + c.op + " " + operand_text(c.rhs); }

// packaging's _format_marker: a group of one term prints without parentheses.
std::string format(const MarkerList& list, bool first) {
    if (list.items.size() == 1) {
        const MarkerElement& only = list.items[0];
        if (only.kind == MarkerElement::Kind::Group) return format(only.group, true);
        if (only.kind == MarkerElement::Kind::Comparison) return comparison_text(only.comparison);
    }
    std::string out;
    for (const auto& e : list.items) {
        if (!out.empty()) out += ' ';
        switch (e.kind) {
            case MarkerElement::Kind::Group: out += format(e.group, false); break;
            case MarkerElement::Kind::Comparison: out += comparison_text(e.comparison); break;
            case MarkerElement::Kind::And: out += "and"; break;
            case MarkerElement::Kind::Or: out += "or"; break;
        }
    }
    return first ? out : "(" + out + ")";
}

// Python's operators on str (byte order of UTF-8 is code point order).
std::optional<bool> string_op(const std::string& op, const std::string& l, const std::string& r) {
    if (op == "in") return r.find(l) != std::string::npos;
    if (op == "not in") return r.find(l) == std::string::npos;
    if (op == "==") return l == r;
    if (op == "!=") return l != r;
    if (op == "<") return l < r;
    if (op == "<=") return l <= r;
    if (op == ">") return l > r;
    if (op == ">=") return l >= r;
    return std::nullopt;
}

struct Evaluator {
    const MarkerEnvironment& env;
    const Marker& marker;

    Unexpected<Error> error(const char* key, MessageArgs extra = {}) const {
        return detail::fail_with(ExitCode::BadInput, key, {{"marker", marker.to_string()}}, extra);
    }

    Expected<bool> compare(const MarkerComparison& c) const {
        if (c.lhs.is_variable == c.rhs.is_variable) return error(c.lhs.is_variable ? "marker.two_variables" : "marker.two_literals");
        MarkerVariable key = c.lhs.is_variable ? c.lhs.variable : c.rhs.variable;
        std::string lhs = c.lhs.is_variable ? env.get(key) : c.lhs.value;
        std::string rhs = c.rhs.is_variable ? env.get(key) : c.rhs.value;
        if (key == MarkerVariable::Extra) {
            lhs = canonicalize_name(lhs);
            rhs = canonicalize_name(rhs);
        }
        if (c.op != "in" && c.op != "not in") {
            if (auto spec = Specifier::parse(c.op + rhs)) {
                if (c.op == "===") return chars::lower(lhs) == chars::lower(spec->version_text());
                if (auto v = Version::try_parse(lhs)) return spec->contains(*v, true);
            }
        }
        if (auto r = string_op(c.op, lhs, rhs)) return *r;
        return error("marker.undefined_comparison", {{"lhs", lhs}, {"op", c.op}, {"rhs", rhs}});
    }

    // packaging evaluates every term (no short cut), so an error anywhere is an error.
    Expected<bool> list(const MarkerList& l) const {
        bool any_group = false, group = true;
        for (const auto& e : l.items) {
            if (e.kind == MarkerElement::Kind::Group) {
                ENVFIX_TRY(bool r, list(e.group));
                group = group && r;
            } else if (e.kind == MarkerElement::Kind::Comparison) {
                ENVFIX_TRY(bool r, compare(e.comparison));
                group = group && r;
            } else if (e.kind == MarkerElement::Kind::Or) {
                any_group = any_group || group;
                group = true;
            }
        }
        return any_group || group;
    }
};

template <class F>
void each_comparison(const MarkerList& l, F&& f) {
    for (const auto& e : l.items) {
        if (e.kind == MarkerElement::Kind::Group)
            each_comparison(e.group, f);
        else if (e.kind == MarkerElement::Kind::Comparison)
            f(e.comparison);
    }
}

}  // namespace

Expected<bool> Marker::evaluate(const MarkerEnvironment& env) const { return Evaluator{env, *this}.list(tree_->root); }

std::string Marker::to_string() const { return format(tree_->root, true); }

std::vector<MarkerVariable> Marker::variables() const {
    std::vector<MarkerVariable> out;
    each_comparison(tree_->root, [&](const MarkerComparison& c) {
        for (const auto* o : {&c.lhs, &c.rhs})
            if (o->is_variable && std::find(out.begin(), out.end(), o->variable) == out.end()) out.push_back(o->variable);
    });
    return out;
}

std::vector<std::string> Marker::extras() const {
    std::vector<std::string> out;
    each_comparison(tree_->root, [&](const MarkerComparison& c) {
        const MarkerOperand* value = nullptr;
        if (c.lhs.is_variable && c.lhs.variable == MarkerVariable::Extra && !c.rhs.is_variable) value = &c.rhs;
        if (c.rhs.is_variable && c.rhs.variable == MarkerVariable::Extra && !c.lhs.is_variable) value = &c.lhs;
        if (value && std::find(out.begin(), out.end(), value->value) == out.end()) out.push_back(value->value);
    });
    return out;
}

}  // namespace envfix::standards
