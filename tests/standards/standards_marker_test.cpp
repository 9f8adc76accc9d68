// PEP 508 environment markers: parsing, printing, evaluation against PythonFacts.
#include <gtest/gtest.h>

#include "envfix/probe/python_facts.hpp"
#include "envfix/standards/marker.hpp"

using envfix::ExitCode;
using namespace envfix::standards;

namespace {

// A CPython 3.12 on Linux x86_64, as the probe reports one.
envfix::probe::PythonFacts linux_facts() {
    envfix::probe::PythonFacts f;
    f.version = "3.12.3";
    f.major = 3;
    f.minor = 12;
    f.implementation_name = "cpython";
    f.implementation_version = "3.12.3";
    f.platform_python_implementation = "CPython";
    f.sys_platform = "linux";
    f.os_name = "posix";
    f.platform_system = "Linux";
    f.platform_machine = "x86_64";
    f.platform_release = "6.1.0-18-amd64";
    f.platform_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)";
    return f;
}

MarkerEnvironment windows_env() {
    MarkerEnvironment e;
    e.python_version = "3.10";
    e.python_full_version = "3.10.11";
    e.os_name = "nt";
    e.sys_platform = "win32";
    e.platform_system = "Windows";
    e.platform_machine = "AMD64";
    e.platform_release = "10";
    e.platform_version = "10.0.19045";
    e.platform_python_implementation = "CPython";
    e.implementation_name = "cpython";
    e.implementation_version = "3.10.11";
    return e;
}

}  // namespace

TEST(Marker, EnvironmentFromFacts) {
    auto env = marker_environment(linux_facts());
    EXPECT_EQ(env.python_version, "3.12");
    EXPECT_EQ(env.python_full_version, "3.12.3");
    EXPECT_EQ(env.sys_platform, "linux");
    EXPECT_EQ(env.platform_machine, "x86_64");
    EXPECT_EQ(env.implementation_name, "cpython");
    EXPECT_EQ(env.extra, "");
    auto f = linux_facts();
    f.version = "3.13.0+";
    f.major = 0;  // not reported: taken from the version
    env = marker_environment(f);
    EXPECT_EQ(env.python_full_version, "3.13.0+local");
    EXPECT_EQ(env.python_version, "3.13");
    EXPECT_EQ(env.get(MarkerVariable::PlatformSystem), "Linux");
    EXPECT_EQ(marker_variable_name(MarkerVariable::PlatformPythonImplementation), "platform_python_implementation");
}

// marker, expected on Linux 3.12 (extra ""), on Windows 3.10 (extra "cuda").
TEST(Marker, EvaluatesEveryVariableAndOperator) {
    struct Case {
        const char* marker;
        bool on_linux;
        bool on_windows;
    };
    const Case cases[] = {
        {"python_version >= '3.9'", true, true},
        {"python_version > '3.10'", true, false},
        {"python_version < '3.10'", false, false},
        {"python_version == '3.12'", true, false},
        {"python_version ~= '3.10'", true, true},
        {"python_version != '3.10'", true, false},
        {"python_version === '3.12'", true, false},
        {"python_version in '3.10 3.11'", false, true},
        {"python_version not in '3.10 3.11'", true, false},
        {"'3.9' < python_version", true, true},
        {"python_full_version >= '3.12.1'", true, false},
        {"python_full_version < '3.12.0rc1'", false, true},
        {"os_name == 'nt'", false, true},
        {"os.name == 'posix'", true, false},
        {"sys_platform == 'win32'", false, true},
        {"sys.platform == 'linux'", true, false},
        {"sys_platform != 'darwin'", true, true},
        {"'linux' in sys_platform", true, false},
        {"platform_system == 'Windows'", false, true},
        {"platform_machine == 'x86_64' or platform_machine == 'AMD64'", true, true},
        {"platform.machine in 'x86_64 AMD64'", true, true},
        {"platform_machine == 'aarch64'", false, false},
        {"platform_release >= '5.10'", true, true},  // "6.1.0-18-amd64" is no version: string order
        {"platform_version >= '10.0.10240'", false, true},
        {"platform.version < '2'", true, false},  // "#1 SMP ..." < "2" as strings
        {"platform_python_implementation == 'CPython'", true, true},
        {"platform.python_implementation == 'PyPy'", false, false},
        {"python_implementation == 'CPython'", true, true},
        {"implementation_name == 'cpython'", true, true},
        {"implementation_version >= '3.11'", true, false},
        {"extra == 'cuda'", false, true},
        {"extra == 'CUDA'", false, true},
        {"extra == 'cu_da'", false, false},
        {"'cuda' == extra", false, true},
        {"extra != 'cuda'", true, false},
        {"python_version >= '3.9' and sys_platform == 'linux'", true, false},
        {"sys_platform == 'linux' or sys_platform == 'win32'", true, true},
        {"sys_platform == 'darwin' or python_version < '3.11' and os_name == 'nt'", false, true},
        {"(sys_platform == 'darwin' or python_version < '3.11') and os_name == 'nt'", false, true},
        {"(python_version >= '3.12' or (os_name == 'nt' and extra == 'cuda')) and platform_machine != 'arm64'", true, true},
        {"((python_version >= '3'))", true, true},
        {"os_name=='posix'and python_version>'3'", true, false},
        {"os_name == \"posix\"", true, false},
        {"os_name == 'po\\x73ix'", true, false},  // Python string escapes
        {"os_name < 'p'", false, true},  // string comparison
        {"platform_machine >= 'A'", true, true},
    };
    auto linux = marker_environment(linux_facts());
    auto windows = windows_env();
    windows.extra = "cuda";
    for (const auto& c : cases) {
        auto m = Marker::parse(c.marker);
        ASSERT_TRUE(m) << c.marker << ": " << m.error().message.key;
        auto l = m->evaluate(linux), w = m->evaluate(windows);
        ASSERT_TRUE(l && w) << c.marker;
        EXPECT_EQ(*l, c.on_linux) << c.marker << " on Linux";
        EXPECT_EQ(*w, c.on_windows) << c.marker << " on Windows";
    }
}

TEST(Marker, PrintsAsPackagingDoes) {
    struct Case {
        const char* in;
        const char* out;
    };
    const Case cases[] = {
        {"python_version>='3.9'", "python_version >= \"3.9\""},
        {"  os.name  ==  'nt'  ", "os_name == \"nt\""},
        {"python_implementation=='CPython'", "platform_python_implementation == \"CPython\""},
        {"'3.9' <= python_version", "\"3.9\" <= python_version"},
        {"(os_name == 'nt')", "os_name == \"nt\""},
        {"((os_name == 'nt'))", "os_name == \"nt\""},
        {"(os_name == 'nt') and (python_version < '3')", "os_name == \"nt\" and python_version < \"3\""},
        {"(os_name == 'nt' or os_name == 'posix') and extra == 'Foo_Bar'",
         "(os_name == \"nt\" or os_name == \"posix\") and extra == \"foo-bar\""},
        {"os_name == 'nt' and (extra == 'A.B' or extra == 'c')", "os_name == \"nt\" and (extra == \"a-b\" or extra == \"c\")"},
        {"extra not in 'a b'", "extra not in \"a b\""},
        {"os_name == 'a\"b'", "os_name == \"a\\x22b\""},
        {"os_name == 'a\\\\b'", "os_name == \"a\\x5cb\""},
    };
    for (const auto& c : cases) {
        auto m = Marker::parse(c.in);
        ASSERT_TRUE(m) << c.in;
        EXPECT_EQ(m->to_string(), c.out) << c.in;
        auto again = Marker::parse(m->to_string());
        ASSERT_TRUE(again) << m->to_string();
        EXPECT_EQ(*again, *m) << c.in;
    }
}

TEST(Marker, SyntaxErrorsNameTheColumn) {
    struct Case {
        const char* in;
        const char* key;
        const char* column;
    };
    const Case cases[] = {
        {"", "marker.expected_marker_operand", "1"},
        {"python_version", "marker.expected_marker_operator", "15"},
        {"python_version >=", "marker.expected_marker_operand", "18"},
        {"python_version >= 3.8", "marker.expected_marker_operand", "19"},
        {"python_versions >= '3'", "marker.expected_marker_operand", "1"},
        {"foo == 'bar'", "marker.expected_marker_operand", "1"},
        {"os_name = 'nt'", "marker.expected_marker_operator", "9"},
        {"os_name not 'nt'", "marker.expected_in_after_not", "13"},
        {"os_name notin 'nt'", "marker.expected_marker_operator", "9"},
        {"(os_name == 'nt'", "marker.expected_paren_close_marker", "17"},
        {"os_name == 'nt')", "marker.expected_end", "16"},
        {"os_name == 'nt' and", "marker.expected_marker_operand", "20"},
        {"os_name == 'nt' xor os_name == 'a'", "marker.expected_end", "17"},
        {"os_name == 'nt", "marker.expected_marker_operand", "12"},
        {"os_name == 'a\\N{DIGIT ONE}'", "marker.bad_string", "12"},
        {"os_name == 'a\\'", "marker.bad_string", "12"},
        {"os_name == 'a\\x4'", "marker.bad_string", "12"},
        {"os_name == 'a\\ud800'", "marker.bad_string", "12"},
        {"os_name == 'nt'\n\n", "marker.expected_end", "16"},
    };
    for (const auto& c : cases) {
        auto m = Marker::parse(c.in);
        ASSERT_FALSE(m) << c.in;
        EXPECT_EQ(m.error().code, ExitCode::BadInput);
        EXPECT_EQ(m.error().message.key, c.key) << c.in;
        EXPECT_EQ(m.error().message.arg("column"), c.column) << c.in;
        EXPECT_EQ(m.error().message.arg("text"), c.in);
    }
    EXPECT_TRUE(Marker::parse("os_name == 'nt'\n"));  // Python's "$" allows one final newline
}

TEST(Marker, EvaluationErrors) {
    auto env = marker_environment(linux_facts());
    struct Case {
        const char* in;
        const char* key;
    };
    const Case cases[] = {
        {"os_name ~= 'posix'", "marker.undefined_comparison"},
        {"os_name === 'po six'", "marker.undefined_comparison"},
        {"'a' == 'a'", "marker.two_literals"},
        {"os_name == sys_platform", "marker.two_variables"},
        {"os_name == 'posix' or 'a' == 'b'", "marker.two_literals"},  // every term is evaluated
    };
    for (const auto& c : cases) {
        auto m = Marker::parse(c.in);
        ASSERT_TRUE(m) << c.in;
        auto r = m->evaluate(env);
        ASSERT_FALSE(r) << c.in;
        EXPECT_EQ(r.error().message.key, c.key) << c.in;
        EXPECT_EQ(r.error().code, ExitCode::BadInput);
    }
    EXPECT_EQ(*Marker::parse("os_name === 'POSIX'")->evaluate(env), true);
}

TEST(Marker, ReportsVariablesAndExtras) {
    auto m = *Marker::parse("python_version < '3.10' and (extra == 'Cuda_12' or extra == \"rocm\") and os.name == 'nt'");
    EXPECT_EQ(m.variables(), (std::vector<MarkerVariable>{MarkerVariable::PythonVersion, MarkerVariable::Extra, MarkerVariable::OsName}));
    EXPECT_EQ(m.extras(), (std::vector<std::string>{"cuda-12", "rocm"}));
}

// Inputs the fuzzers found (tests/fuzz): printing must give text that parses back to the same
// marker. A backslash kept as written ("\q" is no escape) must not run into the escape written
// for the next character ("\" + "\x02" would read back as "\\x02").
TEST(Marker, FuzzRegressionsRoundTrip) {
    const std::string inputs[] = {
        std::string("extra not in \"\x02\\\x02\""),
        std::string("os_name == 'a\\\x02"
                    "b'"),
        std::string("os_name == 'a\\\"b' or os_name == \"\\q\\\\\""),
    };
    for (const auto& in : inputs) {
        auto m = Marker::parse(in);
        ASSERT_TRUE(m) << in;
        auto again = Marker::parse(m->to_string());
        ASSERT_TRUE(again) << m->to_string();
        EXPECT_EQ(again->to_string(), m->to_string()) << in;
    }
    EXPECT_EQ(Marker::parse(std::string("os_name == 'a\\\x02'"))->to_string(), "os_name == \"a\\x5c\\x02\"");
}
