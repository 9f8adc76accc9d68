#include "envfix/probe/python_facts.hpp"

namespace envfix::probe {

const std::vector<PythonFactsStringField>& python_facts_string_fields() {
    static const std::vector<PythonFactsStringField> fields = {
        {"executable", &PythonFacts::executable},
        {"version", &PythonFacts::version},
        {"implementation_name", &PythonFacts::implementation_name},
        {"implementation_version", &PythonFacts::implementation_version},
        {"platform_python_implementation", &PythonFacts::platform_python_implementation},
        {"abiflags", &PythonFacts::abiflags},
        {"soabi", &PythonFacts::soabi},
        {"ext_suffix", &PythonFacts::ext_suffix},
        {"sys_platform", &PythonFacts::sys_platform},
        {"os_name", &PythonFacts::os_name},
        {"platform_system", &PythonFacts::platform_system},
        {"platform_machine", &PythonFacts::platform_machine},
        {"platform_release", &PythonFacts::platform_release},
        {"platform_version", &PythonFacts::platform_version},
        {"sysconfig_platform", &PythonFacts::sysconfig_platform},
        {"prefix", &PythonFacts::prefix},
        {"base_prefix", &PythonFacts::base_prefix},
        {"purelib", &PythonFacts::purelib},
        {"platlib", &PythonFacts::platlib},
        {"scripts", &PythonFacts::scripts},
        {"data", &PythonFacts::data},
        {"include", &PythonFacts::include},
        {"user_site", &PythonFacts::user_site},
    };
    return fields;
}

const std::vector<PythonFactsBoolField>& python_facts_bool_fields() {
    static const std::vector<PythonFactsBoolField> fields = {
        {"free_threaded", &PythonFacts::free_threaded},
        {"site_enabled", &PythonFacts::site_enabled},
        {"user_site_enabled", &PythonFacts::user_site_enabled},
        {"ran", &PythonFacts::ran},
    };
    return fields;
}

}  // namespace envfix::probe
