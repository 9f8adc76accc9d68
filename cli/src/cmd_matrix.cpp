// envfix matrix: the compatibility matrix (releases x variants, GPU architectures, driver
// minimums) for one platform, and with --gpu the releases and variants that carry kernels for a
// GPU, before buying it (issue 5; docs/matrix.md, docs/json.md).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <tuple>

#include "context.hpp"
#include "envfix/common/error.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/matrix/coverage.hpp"
#include "envfix/matrix/driver_rules.hpp"
#include "envfix/matrix/gpu_names.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/matrix/rule_names.hpp"
#include "help_text.hpp"
#include "output.hpp"

namespace envfix::cli {

namespace {

using namespace envfix::matrix;

struct MatrixOptions {
    std::string os, arch, release, variant, channel = "all", driver, python, profiles;
    std::vector<std::string> gpus;
};

struct ResolvedGpu {
    std::string query;
    GpuMatch match;
    const Architecture* arch = nullptr;
};

// One row: a release's variant on the chosen platform, with what --gpu/--driver add.
struct Row {
    const Release* release = nullptr;
    const Variant* variant = nullptr;
    const Build* build = nullptr;
    std::optional<RuntimeNeed> need;
    std::vector<GpuCoverage> coverage;  // per --gpu
    bool serves_all = true;
    std::optional<DriverVersion> driver_for_gpus;  // toolkit minimum and the GPUs' first branches
    std::optional<RuntimeVerdict> with_driver;     // --driver
};

Platform platform_of(const MatrixOptions& o) {
    auto host = host_platform().value_or(Platform{});
    Platform p = host;
    if (!o.os.empty()) {
        auto os = parse_os(o.os);
        if (!os) throw Failure(ExitCode::Usage, "matrix.bad_os", {{"value", o.os}});
        p.os = *os;
    }
    if (!o.arch.empty()) {
        auto cpu = parse_cpu(o.arch);
        if (!cpu) throw Failure(ExitCode::Usage, "matrix.bad_arch", {{"value", o.arch}});
        p.cpu = *cpu;
    }
    return p;
}

bool release_matches(const Release& r, const MatrixOptions& o) {
    if (o.channel == "stable" && r.channel != Channel::Stable) return false;
    if (o.channel == "nightly" && r.channel != Channel::Nightly) return false;
    if (o.release.empty()) return true;
    return r.torch == o.release || r.line == o.release || (o.release == "nightly" && r.channel == Channel::Nightly);
}

// "3.10-3.14, 3.14t": consecutive minors folded, free-threaded builds listed after.
std::string python_range(const std::vector<std::string>& versions) {
    std::vector<int> minors;
    std::vector<std::string> threaded;
    for (const auto& v : versions) {
        if (v.ends_with("t")) threaded.push_back(v);
        else if (auto n = str::to_int(v.substr(2))) minors.push_back(static_cast<int>(*n));
    }
    std::sort(minors.begin(), minors.end());
    std::vector<std::string> parts;
    for (size_t i = 0; i < minors.size();) {
        size_t j = i;
        while (j + 1 < minors.size() && minors[j + 1] == minors[j] + 1) ++j;
        std::string part = "3." + std::to_string(minors[i]);
        if (j > i) part += "-3." + std::to_string(minors[j]);
        parts.push_back(part);
        i = j + 1;
    }
    parts.insert(parts.end(), threaded.begin(), threaded.end());
    return str::join(parts, ", ");
}

std::string arch_list(const std::vector<probe::ArchTarget>& ts) {
    std::vector<std::string> out;
    for (const auto& t : ts) out.push_back(t.cc.to_string() + (t.variant ? std::string(1, t.variant) : ""));
    return out.empty() ? "-" : str::join(out, " ");
}

std::string notes_of(const Row& r) {
    std::vector<std::string> notes;
    if (r.variant->status != VariantStatus::Official) notes.push_back(t(msg(std::string("matrix.note.") + std::string(to_string(r.variant->status)))));
    if (r.build->confidence == Confidence::Unconfirmed) notes.push_back(t(msg("matrix.note.unconfirmed")));
    else if (r.build->confidence == Confidence::ThirdParty) notes.push_back(t(msg("matrix.note.third_party")));
    else if (r.build->confidence == Confidence::Measured) notes.push_back(t(msg("matrix.note.measured")));
    return str::join(notes, ", ");
}

std::string kind_text(const GpuCoverage& c) {
    const std::string target = c.target ? (c.kind == CoverageKind::Jit ? c.target->compute_tag() : c.target->sm_tag()) : "";
    switch (c.kind) {
        case CoverageKind::Native: return t(msg("matrix.kind.native", {{"target", target}}));
        case CoverageKind::SameMajor: return t(msg("matrix.kind.same_major", {{"target", target}}));
        case CoverageKind::Family: return t(msg("matrix.kind.family", {{"target", target}}));
        case CoverageKind::Jit: return t(msg("matrix.kind.jit", {{"target", target}}));
        case CoverageKind::None: break;
    }
    return "-";
}

std::vector<Row> collect_rows(const Matrix& m, const MatrixOptions& o, const Platform& p, const std::vector<ResolvedGpu>& gpus,
                              const std::optional<DriverVersion>& driver, const std::optional<std::string>& python) {
    std::vector<Row> rows;
    std::vector<ComputeCapability> ccs;
    for (const auto& g : gpus) ccs.push_back(g.match.cc);
    for (const Release* r : m.newest_first()) {
        if (!release_matches(*r, o)) continue;
        if (python && !r->offers_python(*python, p)) continue;
        for (const auto& v : r->variants) {
            if (!o.variant.empty() && v.name != o.variant) continue;
            const Build* b = v.build(p);
            if (!b) continue;
            Row row{r, &v, b, runtime_need(m, v, p.os), {}, true, std::nullopt, std::nullopt};
            if (driver) row.with_driver = check_runtime(m, v, p.os, driver);
            if (!gpus.empty()) {
                BinaryTargets bin{b->sass, b->ptx};
                CoverageOptions opt;
                if (const Toolkit* tk = v.cuda ? m.toolkit(*v.cuda) : nullptr) opt.ptx_isa = tk->ptx_isa;
                // With --driver, PTX counts only when that driver can JIT-compile it.
                if (driver) {
                    if (auto cuda = m.driver_cuda(*driver)) opt.driver_max_isa = m.max_ptx_isa(*cuda);
                    opt.minor_compat = row.with_driver->fit == RuntimeFit::MinorCompat;
                }
                for (const auto& g : gpus) {
                    opt.tegra = g.arch && g.arch->tegra;
                    row.coverage.push_back(cover(bin, g.match.cc, opt));
                    if (!row.coverage.back().served()) row.serves_all = false;
                }
                row.driver_for_gpus = driver_needed(m, v, p.os, ccs);
            }
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

Json variant_json(const Row& r, const std::vector<ResolvedGpu>& gpus) {
    Json v;
    v["name"] = r.variant->name;
    v["cuda"] = r.variant->toolkit.empty() ? Json(nullptr) : Json(r.variant->toolkit);
    v["status"] = std::string(to_string(r.variant->status));
    v["confidence"] = std::string(to_string(r.build->confidence));
    v["source"] = r.build->source.str();
    Json sass = Json::array(), ptx = Json::array();
    for (const auto& a : r.build->sass) sass.push_back(a.cc.to_string());
    for (const auto& a : r.build->ptx) ptx.push_back(a.cc.to_string());
    v["sass"] = sass;
    v["ptx"] = ptx;
    if (r.need)
        v["min_driver"] = {{"exact", r.need->exact.to_string()},
                           {"floor", r.need->floor ? Json(r.need->floor->to_string()) : Json(nullptr)},
                           {"update_known", r.need->update_known},
                           {"confirmed", r.need->figure_confirmed}};
    else
        v["min_driver"] = nullptr;
    if (!gpus.empty()) {
        v["serves_all"] = r.serves_all;
        v["min_driver_for_gpus"] = r.driver_for_gpus ? Json(r.driver_for_gpus->to_string()) : Json(nullptr);
        Json cov = Json::array();
        for (size_t i = 0; i < r.coverage.size(); ++i) {
            const auto& c = r.coverage[i];
            BinaryTargets bin{r.build->sass, r.build->ptx};
            cov.push_back({{"cc", c.gpu.to_string()},
                           {"served", c.served()},
                           {"kind", std::string(coverage_kind_name(c.kind))},
                           {"target", c.target ? Json(c.kind == CoverageKind::Jit ? c.target->compute_tag() : c.target->sm_tag())
                                               : Json(nullptr)},
                           {"reason", t(describe(c, bin, gpu_label(gpus[i].match)))}});
        }
        v["gpus"] = cov;
    }
    if (r.with_driver) v["driver_fit"] = std::string(runtime_fit_name(r.with_driver->fit));
    return v;
}

Json gpu_json(const ResolvedGpu& g) {
    Json j;
    j["query"] = g.query;
    j["name"] = g.match.name.empty() ? Json(nullptr) : Json(g.match.name);
    j["cc"] = g.match.cc.to_string();
    j["sm"] = g.match.cc.sm_tag();
    j["family"] = g.arch ? Json(g.arch->family) : Json(nullptr);
    j["products"] = g.arch ? Json(g.arch->products) : Json(nullptr);
    j["first_driver"] = g.arch && g.arch->first_driver ? Json(*g.arch->first_driver) : Json(nullptr);
    j["last_driver"] = g.arch && g.arch->last_driver ? Json(*g.arch->last_driver) : Json(nullptr);
    j["tegra"] = g.arch && g.arch->tegra;
    return j;
}

void print_json_doc(const Matrix& m, const MatrixOptions& o, const Platform& p, const std::vector<ResolvedGpu>& gpus,
                    const std::optional<DriverVersion>& driver, const std::vector<Row>& rows) {
    Json j;
    j["schema_version"] = kJsonSchemaVersion;
    j["platform"] = p.key();
    j["profiles"] = o.profiles.empty() ? Json("built-in") : Json(o.profiles);
    j["devices_origin"] = m.devices_origin;
    j["driver"] = driver ? Json(driver->to_string()) : Json(nullptr);
    Json gj = Json::array();
    for (const auto& g : gpus) gj.push_back(gpu_json(g));
    j["gpus"] = gj;
    Json releases = Json::array();
    for (size_t i = 0; i < rows.size();) {
        const Release& r = *rows[i].release;
        Json rj;
        rj["torch"] = r.torch;
        rj["line"] = r.line;
        rj["channel"] = std::string(to_string(r.channel));
        rj["released"] = r.released;
        rj["confidence"] = std::string(to_string(r.confidence));
        rj["python"] = r.python_for(p);
        rj["pypi_default"] = r.pypi_default.empty() ? Json(nullptr) : Json(r.pypi_default);
        auto opt = [](const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); };
        rj["companions"] = {{"torchvision", opt(r.companions.torchvision)},
                            {"torchaudio", opt(r.companions.torchaudio)},
                            {"triton", opt(r.companions.triton)},
                            {"xformers", opt(r.companions.xformers)}};
        Json vs = Json::array();
        for (; i < rows.size() && rows[i].release == &r; ++i) vs.push_back(variant_json(rows[i], gpus));
        rj["variants"] = vs;
        releases.push_back(rj);
    }
    j["releases"] = releases;
    print_json(j);
}

std::string driver_cell(const Row& r) {
    if (!r.need) return "-";
    std::string s = r.need->exact.to_string();
    if (r.need->floor) s += " (" + r.need->floor->to_string() + ")";
    return s;
}

void print_plain(const Matrix& m, const Platform& p, const std::vector<Row>& rows, bool show_cpu) {
    print(msg("matrix.header", {{"platform", p.key()}, {"origin", m.devices_origin}}));
    Table table({t(msg("matrix.col.torch")), t(msg("matrix.col.variant")), t(msg("matrix.col.cuda")), t(msg("matrix.col.driver")),
                 t(msg("matrix.col.python")), t(msg("matrix.col.sass")), t(msg("matrix.col.ptx")), t(msg("matrix.col.notes"))});
    for (const auto& r : rows) {
        if (r.variant->is_cpu() && !show_cpu) continue;
        table.add({r.release->torch, r.variant->name, r.variant->toolkit.empty() ? "-" : r.variant->toolkit, driver_cell(r),
                   python_range(r.release->python_for(p)), arch_list(r.build->sass), arch_list(r.build->ptx), notes_of(r)});
    }
    if (table.empty()) {
        print(msg("matrix.no_rows"));
        return;
    }
    std::string text = table.str();
    text.pop_back();
    print(text);
    if (!show_cpu) print(msg("matrix.cpu_note"));
    print(msg("matrix.driver_note"));
}

void print_for_gpus(const Platform& p, const std::vector<ResolvedGpu>& gpus, const std::optional<DriverVersion>& driver,
                    const std::vector<Row>& rows) {
    for (const auto& g : gpus) {
        std::string label = g.match.name.empty() ? g.match.cc.sm_tag() : g.match.name;
        if (g.arch)
            print(msg("matrix.gpu_header", {{"gpu", label}, {"cc", g.match.cc.to_string()}, {"family", g.arch->family}, {"products", g.arch->products}}));
        else
            print(msg("matrix.gpu_header_unknown", {{"gpu", label}, {"cc", g.match.cc.to_string()}}));
        if (g.arch && g.arch->first_driver) print(msg("matrix.gpu_first_driver", {{"first", std::to_string(*g.arch->first_driver)}}));
        if (g.arch && g.arch->last_driver) print(msg("matrix.gpu_last_driver", {{"last", std::to_string(*g.arch->last_driver)}}));
        if (g.arch && g.arch->tegra) print(msg("matrix.gpu_tegra"));
    }
    std::vector<std::string> headers{t(msg("matrix.col.torch")), t(msg("matrix.col.variant")), t(msg("matrix.col.kernels")),
                                     t(msg("matrix.col.driver_for_gpu")), t(msg("matrix.col.python"))};
    if (driver) headers.push_back(t(msg("matrix.col.with_driver", {{"driver", driver->to_string()}})));
    headers.push_back(t(msg("matrix.col.notes")));
    Table table(headers);
    const Row* newest = nullptr;  // the newest stable row (nightly only when no stable one serves)
    const Row* oldest = nullptr;
    size_t served = 0;
    for (const auto& r : rows) {
        if (r.variant->is_cpu() || !r.serves_all) continue;
        ++served;
        // Summary: stable before nightly, newest release, PyPI's default variant (what the policy
        // takes when the driver is unknown), official before extra, newest CUDA.
        auto key = [](const Row& x) {
            return std::make_tuple(x.release->channel == Channel::Stable, x.release->order,
                                   x.release->pypi_default == x.variant->name, x.variant->status == VariantStatus::Official,
                                   x.variant->cuda ? x.variant->cuda->encoded() : 0);
        };
        if (!newest || key(r) > key(*newest)) newest = &r;
        oldest = &r;
        std::vector<std::string> kinds;
        for (const auto& c : r.coverage) kinds.push_back(kind_text(c));
        std::vector<std::string> cells{r.release->torch, r.variant->name, str::join(kinds, "; "),
                                       r.driver_for_gpus ? r.driver_for_gpus->to_string() : "-",
                                       python_range(r.release->python_for(p))};
        if (driver) cells.push_back(t(msg(std::string("matrix.fit.") + std::string(runtime_fit_name(r.with_driver->fit)))));
        cells.push_back(notes_of(r));
        table.add(std::move(cells));
    }
    std::string labels;
    for (const auto& g : gpus) labels += (labels.empty() ? "" : ", ") + gpu_label(g.match);
    if (!newest) {
        print(msg("matrix.gpu_none", {{"gpu", labels}, {"platform", p.key()}}));
        return;
    }
    print(msg("matrix.gpu_served", {{"count", std::to_string(served)},
                                    {"oldest", oldest->release->torch},
                                    {"torch", newest->release->torch},
                                    {"variant", newest->variant->name},
                                    {"driver", newest->driver_for_gpus ? newest->driver_for_gpus->to_string() : "-"}}));
    std::string text = table.str();
    text.pop_back();
    print(text);
}

void run_matrix(Context& ctx, const MatrixOptions& o) {
    std::optional<std::filesystem::path> dir;
    if (!o.profiles.empty()) dir = o.profiles;
    Matrix m = value_or_throw(load_profiles(dir));
    Platform p = platform_of(o);

    std::optional<DriverVersion> driver;
    if (!o.driver.empty()) {
        driver = DriverVersion::parse(o.driver);
        if (!driver) throw Failure(ExitCode::Usage, "matrix.bad_driver", {{"value", o.driver}});
    }
    std::optional<std::string> python;
    if (!o.python.empty()) {
        python = normalize_python(o.python);
        if (!python) throw Failure(ExitCode::Usage, "matrix.bad_python", {{"value", o.python}});
    }
    std::vector<ResolvedGpu> gpus;
    for (const auto& q : o.gpus) {
        GpuMatch g = value_or_throw(resolve_gpu(m, q));
        gpus.push_back({q, g, m.architecture(g.cc)});
    }

    auto rows = collect_rows(m, o, p, gpus, driver, python);
    bool any_served = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.variant->is_cpu() && r.serves_all; });
    if (!gpus.empty() && !any_served) ctx.exit_code = ExitCode::NothingFits;

    if (ctx.opts.json) {
        print_json_doc(m, o, p, gpus, driver, rows);
    } else if (gpus.empty()) {
        print_plain(m, p, rows, o.variant == "cpu");
    } else {
        print_for_gpus(p, gpus, driver, rows);
    }
}

}  // namespace

void register_matrix(CLI::App& app, Context& ctx) {
    auto opts = std::make_shared<MatrixOptions>();
    auto* cmd = app.add_subcommand("matrix", help_text("help.matrix"));
    cmd->add_option("--gpu", opts->gpus, help_text("help.matrix.gpu"));
    cmd->add_option("--driver", opts->driver, help_text("help.matrix.driver"));
    cmd->add_option("--os", opts->os, help_text("help.matrix.os"));
    cmd->add_option("--arch", opts->arch, help_text("help.matrix.arch"));
    cmd->add_option("--release", opts->release, help_text("help.matrix.release"));
    cmd->add_option("--variant", opts->variant, help_text("help.matrix.variant"));
    cmd->add_option("--channel", opts->channel, help_text("help.matrix.channel"))->check(CLI::IsMember({"stable", "nightly", "all"}));
    cmd->add_option("--python", opts->python, help_text("help.matrix.python"));
    cmd->add_option("--profiles", opts->profiles, help_text("help.common.profiles"));
    cmd->callback([&ctx, opts] { run_matrix(ctx, *opts); });
}

}  // namespace envfix::cli
