// The Plan stage of an install (install_plan.hpp).
#include "install_plan.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "directory_keeper.hpp"
#include "envfix/common/nearly_sorted.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/network/url.hpp"
#include "envfix/probe/environment.hpp"
#include "envfix/standards/names.hpp"
#include "environment_files.hpp"
#include "file_ops.hpp"
#include "install_checks.hpp"
#include "path_under.hpp"
#include "tx_internal.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

void PhaseClock::lap(const char* phase) {
    const auto now = Clock::now();
    const auto used = platform::thread_usage();
    auto ms = [](auto d) { return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
    reporter_.debug(msg("install.debug.phase_used", {{"phase", phase},
                                                     {"ms", ms(now - at_)},
                                                     {"cpu", ms(used.cpu - used_.cpu)},
                                                     {"waits", std::to_string(used.waits - used_.waits)},
                                                     {"preempted", std::to_string(used.preempted - used_.preempted)}}));
    at_ = now;
    used_ = used;
}

Expected<InstallContext> make_install_context(const probe::Environment& env, const InstallRequest& request, Reporter& reporter) {
    if (!env.runnable()) return fail(ExitCode::EnvBroken, "install.env_not_runnable", {{"path", env.root.string()}});
    if (!request.break_system_packages) ENVFIX_TRY_VOID(check_not_externally_managed(env));
    ENVFIX_TRY(auto scheme, install_scheme(env));
    auto target = script_target(env, scheme);
    return InstallContext{env,
                          request,
                          reporter,
                          std::move(scheme),
                          std::move(target),
                          standards::supported_tags(env.facts),
                          unpacked_cache_root(),
                          environment_areas(env),
                          PhaseClock(reporter)};
}

Writer::Writer(size_t most) {
    size_t n = 16;
    while (n < 2 * most) n *= 2;
    slots_.assign(n, 0);
    entries_.reserve(most);
}

void Writer::clear() {
    entries_ = {};
    slots_ = {};
}

Writer::value_type* Writer::add(const PathText* key, std::pair<size_t, size_t> who) {
    uint32_t& slot = slots_[slot_of(*key)];
    if (slot) return &entries_[slot - 1];
    entries_.emplace_back(key, who);
    slot = static_cast<uint32_t>(entries_.size());
    return nullptr;
}

Writer::const_iterator Writer::find(const PathText& p) const {
    if (slots_.empty()) return end();  // cleared
    const uint32_t slot = slots_[slot_of(p)];
    return slot ? entries_.begin() + (slot - 1) : entries_.end();
}

const std::pair<size_t, size_t>& Writer::at(const PathText& p) const {
    auto it = find(p);
    if (it == end()) throw std::out_of_range("no writer for " + stdfs::path(p).string());
    return it->second;
}

// Linear probing, at most half the slots used (a std::map of torch's stack's 17 000 was 4 ms of a
// warm install, every insert ~14 comparisons of long shared prefixes): the slot holding `text`,
// or the empty one where it would go.
size_t Writer::slot_of(const PathText& text) const {
    const size_t mask = slots_.size() - 1;
    for (size_t h = std::hash<PathText>()(text) & mask;; h = (h + 1) & mask)
        if (!slots_[h] || *entries_[slots_[h] - 1].first == text) return h;
}

bool InstallPlan::brings_in() const {
    return std::any_of(inputs.begin(), inputs.end(), [](const Input& in) { return !in.skip; });
}

bool InstallPlan::changes_nothing() const { return !brings_in() && remove_files.empty() && extra_files.empty(); }

std::string InstallPlan::summary() const {
    std::vector<std::string> in, out;
    for (const auto& i : inputs)
        if (!i.skip) in.push_back(i.plan.name + " " + i.plan.version);
    for (const auto* d : removing) out.push_back(d->name + " " + d->version);
    std::string s;
    if (!in.empty()) s += "install " + str::join(in, ", ");
    if (!out.empty()) s += std::string(s.empty() ? "" : "; ") + "remove " + str::join(out, ", ");
    return s;
}

InstallPlan plan_for(const InstallRequest& request) {
    InstallPlan plan;
    plan.inputs.resize(request.wheels.size());
    for (size_t i = 0; i < plan.inputs.size(); ++i) plan.inputs[i].request = request.wheels[i];
    return plan;
}

// A wheel whose unpacked entry is there is read from the directory kept with it, not from its
// archive; never for --force-reinstall, a repair, which checks the archive again.
Expected<void> open_wheels(InstallPlan& plan, const InstallContext& ctx, DirectoryKeeper& keeper) {
    auto& inputs = plan.inputs;
    const auto& request = ctx.request;
    std::vector<std::optional<Error>> open_errors(inputs.size());
    tx::parallel_for(
        inputs.size(),
        [&](size_t i) {
            Input& in = inputs[i];
            const auto& req = in.request;
            auto r = [&]() -> Expected<void> {
                std::optional<WheelFile> kept;
                if (!request.force_reinstall)
                    if (auto sha = unpacked::known_sha256(ctx.unpacked_root, req.file); sha && unpacked::has_entry(ctx.unpacked_root, *sha))
                        kept = unpacked::load_directory(ctx.unpacked_root, *sha, req.file);
                in.from_directory = kept.has_value();
                if (kept) {
                    in.wheel = std::move(*kept);
                } else {
                    ENVFIX_TRY(in.wheel, open_wheel(req.file));
                }
                ENVFIX_TRY_VOID(check_compatible(in.wheel, ctx.env.facts, ctx.supported));
                WheelOptions wo;
                wo.requested = req.requested;
                if (req.direct_url) wo.direct_url = network::strip_credentials(*req.direct_url);
                ENVFIX_TRY(in.plan, plan_wheel(in.wheel, ctx.scheme, ctx.target, wo));
                return {};
            }();
            if (!r) open_errors[i] = std::move(r).error();
        },
        1);
    for (auto& e : open_errors)
        if (e) return unexpected(std::move(*e));
    const auto kept = std::count_if(inputs.begin(), inputs.end(), [](const Input& in) { return in.from_directory; });
    ctx.reporter.debug(msg("install.debug.directories_used", {{"kept", std::to_string(kept)}, {"count", std::to_string(inputs.size())}}));
    if (static_cast<size_t>(kept) < inputs.size() && !request.dry_run) keeper.start();
    return {};
}

Expected<void> name_wheels(InstallPlan& plan, InstallContext& ctx, DirectoryKeeper& keeper) {
    auto& inputs = plan.inputs;
    plan.wanted.resize(inputs.size());
    if (ctx.request.prepared) {
        for (size_t i = 0; i < inputs.size(); ++i) {
            ENVFIX_TRY(plan.wanted[i], standards::parse_wheel_name(inputs[i].request.file.filename().string()));
        }
    } else {
        ENVFIX_TRY_VOID(open_wheels(plan, ctx, keeper));
        for (size_t i = 0; i < inputs.size(); ++i) plan.wanted[i] = inputs[i].wheel.name;
        ctx.lap("wheels opened and planned");
    }
    std::set<std::string> names;
    for (size_t i = 0; i < inputs.size(); ++i)
        if (!names.insert(plan.wanted[i].canonical_name).second)
            return fail(ExitCode::Usage, "install.duplicate_wheel",
                        {{"name", plan.wanted[i].canonical_name}, {"file", inputs[i].request.file.filename().string()}});
    return {};
}

Expected<void> take_prepared_wheels(InstallPlan& plan, InstallContext& ctx, DirectoryKeeper& keeper) {
    auto& inputs = plan.inputs;
    ENVFIX_TRY(auto files, ctx.request.prepared->files());
    if (files.size() != inputs.size())
        return fail(ExitCode::Internal, "install.wheels_mismatch", {{"count", std::to_string(files.size())}});
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i].request.file = std::move(files[i]);
    ctx.lap("wheels handed over");
    ENVFIX_TRY_VOID(open_wheels(plan, ctx, keeper));
    ctx.lap("wheels opened and planned");
    for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i].wheel.name.canonical_name != plan.wanted[i].canonical_name ||
            !(inputs[i].wheel.name.version == plan.wanted[i].version))
            return fail(ExitCode::Internal, "install.wheels_mismatch", {{"count", std::to_string(inputs.size())}});
    return {};
}

Expected<void> plan_site_import(InstallPlan& plan, const InstallContext& ctx, InstallResult& result) {
    const auto& env = ctx.env;
    if (env.kind != probe::EnvKind::Embedded || !env.pth_file || plan.inputs.empty()) return {};
    ENVFIX_TRY(auto pth_text, fs::read_file(*env.pth_file));
    if (probe::parse_pth(pth_text).import_site) return {};
    if (!ctx.reporter.confirm(msg("install.pth_enable_site", {{"path", env.pth_file->string()}}), false))
        return fail(ExitCode::Usage, "install.pth_site_refused", {{"path", env.pth_file->string()}});
    PlannedFile f;
    f.kind = PlannedFile::Kind::Generated;
    f.dest = env.pth_file->lexically_normal().native();
    f.content = enable_import_site(pth_text);
    plan.extra_files.push_back(std::move(f));
    result.site_enabled = true;
    return {};
}

Expected<void> read_what_is_installed(InstallPlan& plan, const InstallContext& ctx) {
    std::vector<stdfs::path> scan = ctx.env.site_packages;
    scan.push_back(ctx.scheme.purelib);
    scan.push_back(ctx.scheme.platlib);
    ENVFIX_TRY(plan.installed, standards::read_installed(scan));
    auto remove_dist = [&](const standards::InstalledDist* d) {
        if (std::find(plan.removing.begin(), plan.removing.end(), d) == plan.removing.end()) plan.removing.push_back(d);
    };
    for (size_t i = 0; i < plan.inputs.size(); ++i) {
        auto& in = plan.inputs[i];
        const auto& wanted = plan.wanted[i];
        in.replaces = plan.installed.find_all(wanted.canonical_name);
        bool same = !in.replaces.empty() && std::all_of(in.replaces.begin(), in.replaces.end(), [&](const standards::InstalledDist* d) {
            return d->parsed_version && *d->parsed_version == wanted.version;
        });
        if (same && !ctx.request.force_reinstall) {
            in.skip = true;
            continue;
        }
        for (const auto* d : in.replaces) remove_dist(d);
    }
    return {};
}

Expected<void> plan_removals(InstallPlan& plan, const InstallContext& ctx, InstallResult& result) {
    for (const auto& name : ctx.request.remove) {
        auto found = plan.installed.find_all(name);
        if (found.empty()) ctx.reporter.warn(msg("install.remove_not_installed", {{"name", name}}));
        for (const auto* d : found)
            if (std::find(plan.removing.begin(), plan.removing.end(), d) == plan.removing.end()) plan.removing.push_back(d);
    }
    for (const auto& d : plan.installed.dists)
        if (std::find(plan.removing.begin(), plan.removing.end(), &d) == plan.removing.end()) plan.staying.push_back(&d);
    plan.owners = recorded_owners(plan.staying);
    PathSet protect;
    plan.env_files = environment_files(ctx.env, ctx.scheme);
    for (const auto& p : plan.env_files) protect.insert(p.native());
    for (const auto& [p, owner] : plan.owners) protect.insert(p);
    for (const auto* d : plan.removing) {
        ENVFIX_TRY(auto rp, plan_removal(*d, ctx.env.root, protect));
        for (auto& m : rp.skipped) ctx.reporter.warn(m);
        result.removed.push_back({d->name, d->version, d->dist_info, "", rp.files.size(), 0});
        for (auto& [k, row] : rp.rows) plan.replaced_rows.try_emplace(rp.files[k], std::move(row));
        for (auto& f : rp.files) plan.remove_files.push_back(std::move(f));
    }
    return {};
}

void list_unchanged(const InstallPlan& plan, const InstallContext& ctx, InstallResult& result) {
    for (const auto& in : plan.inputs) {
        if (!in.skip) continue;
        result.unchanged.push_back({in.plan.name, in.plan.version, in.replaces.front()->dist_info, in.wheel.source()});
        ctx.reporter.info(msg("install.already_installed", {{"name", in.plan.name}, {"version", in.plan.version}}));
    }
}

Expected<void> check_dependencies(const InstallPlan& plan, const InstallContext& ctx, InstallResult& result) {
    std::map<std::string, std::string> final_versions;
    for (const auto* d : plan.staying) final_versions[d->canonical_name] = d->version;
    std::vector<const standards::CoreMetadata*> new_meta;
    for (const auto& in : plan.inputs) {
        final_versions[in.plan.canonical_name] = in.plan.version;
        if (!in.skip) new_meta.push_back(&in.wheel.metadata);
    }
    std::vector<Message> dep_warnings;
    result.unmet = unmet_requirements(new_meta, final_versions, ctx.env.facts, dep_warnings);
    for (auto& m : dep_warnings) ctx.reporter.warn(m);
    if (result.unmet.empty()) return {};
    std::vector<std::string> lines;
    for (const auto& u : result.unmet) lines.push_back(u.dist + " → " + u.requirement + (u.found.empty() ? "" : " (" + u.found + ")"));
    if (ctx.request.check_dependencies)
        return fail(ExitCode::RequirementsUnmet, "install.unmet_dependencies",
                    {{"count", std::to_string(result.unmet.size())}, {"list", str::join(lines, "; ")}});
    for (const auto& l : lines) ctx.reporter.warn(msg("install.unmet_dependency", {{"what", l}}));
    return {};
}

namespace {

// Paths no wheel may write, refused before anything is staged: the files an install writes
// itself (a .data/purelib/…dist-info/RECORD, another wheel's RECORD), and those that make the
// environment one (the interpreter, pyvenv.cfg, activate …: a wheel's .data/data/bin/python3
// would leave it without its interpreter).
Expected<void> refuse_reserved_paths(const InstallPlan& plan) {
    auto refuse = [&](const stdfs::path& p, const char* key) -> Expected<void> {
        auto it = plan.writer.find(p.native());  // the writer's keys are lexically normal, as p is
        if (it == plan.writer.end()) return {};
        const auto& by = plan.inputs[it->second.first];
        const auto& f = by.plan.files[it->second.second];
        const std::string entry =
            f.kind == PlannedFile::Kind::Generated ? stdfs::path(f.dest).string() : by.wheel.zip.entries[f.entry].name;
        return fail(ExitCode::BadWheel, key, {{"file", by.wheel.source()}, {"entry", entry}, {"path", p.string()}});
    };
    for (const auto& in : plan.inputs) {
        if (in.skip) continue;
        for (const char* leaf : {"RECORD", "direct_url.json"})
            ENVFIX_TRY_VOID(refuse((in.plan.dist_info / leaf).lexically_normal(), "install.writes_install_record"));
    }
    for (const auto& p : plan.env_files) ENVFIX_TRY_VOID(refuse(p, "install.writes_environment_file"));
    return {};
}

// One wheel's files into the writer, in the order of their destinations (sorted in linear time,
// as they come nearly in order).
void add_writers(InstallPlan& plan, size_t i, const InstallContext& ctx) {
    auto& inputs = plan.inputs;
    std::vector<Writer::value_type> run;
    for (size_t k = 0; k < inputs[i].plan.files.size(); ++k) {
        const auto& f = inputs[i].plan.files[k];
        PathText scratch;
        const PathText* key = f.dest_normal ? &f.dest : &normal_text(f.dest, scratch);
        if (key == &scratch) key = &plan.normal_dests.emplace_back(std::move(scratch));
        run.emplace_back(key, std::pair{i, k});
    }
    sort_nearly_sorted(run, [](const Writer::value_type& a, const Writer::value_type& b) { return DestLess()(a.first, b.first); });
    for (const auto& [key, who] : run) {
        auto* earlier = plan.writer.add(key, who);
        if (!earlier) continue;
        const auto& prev = inputs[earlier->second.first];
        const auto& pf = prev.plan.files[earlier->second.second];
        const auto& f = inputs[i].plan.files[who.second];
        bool same = pf.kind == PlannedFile::Kind::Extracted && f.kind == PlannedFile::Kind::Extracted &&
                    prev.wheel.record[prev.wheel.record_row[pf.entry]].hash_digest ==
                        inputs[i].wheel.record[inputs[i].wheel.record_row[f.entry]].hash_digest;
        if (!same)
            ctx.reporter.warn(msg("install.file_clash",
                                  {{"path", stdfs::path(f.dest).string()}, {"first", prev.plan.name}, {"second", inputs[i].plan.name}}));
        earlier->second = who;
    }
}

}  // namespace

Expected<void> plan_writers(InstallPlan& plan, const InstallContext& ctx) {
    size_t planned_files = 0;
    for (const auto& in : plan.inputs)
        if (!in.skip) planned_files += in.plan.files.size();
    plan.writer = Writer(planned_files);
    for (size_t i = 0; i < plan.inputs.size(); ++i)
        if (!plan.inputs[i].skip) add_writers(plan, i, ctx);
    ENVFIX_TRY_VOID(refuse_reserved_paths(plan));
    std::map<std::string, std::map<std::string, size_t>> overwritten;  // new dist -> owner -> files
    PathSet removing_set(plan.remove_files.begin(), plan.remove_files.end());
    for (const auto& [dest, who] : plan.writer) {  // its keys lexically normal already
        auto it = plan.owners.find(*dest);
        if (it != plan.owners.end() && !removing_set.count(*dest)) overwritten[plan.inputs[who.first].plan.name][it->second]++;
    }
    for (const auto& [name, by] : overwritten)
        for (const auto& [owner, count] : by)
            ctx.reporter.warn(msg("install.overwrites", {{"name", name}, {"owner", owner}, {"count", std::to_string(count)}}));
    return {};
}

void list_installed(const InstallPlan& plan, InstallResult& result) {
    for (const auto& in : plan.inputs) {
        if (in.skip) continue;
        uint64_t bytes = 0;
        for (const auto& f : in.plan.files)
            bytes += f.kind == PlannedFile::Kind::Generated ? f.content.size() : in.wheel.zip.entries[f.entry].size;
        result.installed.push_back({in.plan.name, in.plan.version, in.plan.dist_info, in.wheel.source(), in.plan.files.size() + 1, bytes});
    }
}

// Bytecode of a file left in place stays with it (it is neither removed nor moved).
void plan_left_in_place(InstallPlan& plan, const Snapshot& present, const stdfs::path& root) {
    KnownFiles known;
    for (const auto& f : present.files) known.emplace(f.path, &f);
    std::vector<WantedFile> wanted;
    std::vector<std::pair<size_t, size_t>> wanted_by;  // the (input, file) of each
    const auto& inputs = plan.inputs;
    for (const auto& [dest, who] : plan.writer) {  // its keys lexically normal already
        const auto& in = inputs[who.first];
        const auto& f = in.plan.files[who.second];
        if (f.kind != PlannedFile::Kind::Extracted || in.wheel.record_row[f.entry] < 0) continue;
        wanted.push_back(
            {dest, &in.wheel.record[static_cast<size_t>(in.wheel.record_row[f.entry])], in.wheel.zip.entries[f.entry].size, f.executable});
        wanted_by.push_back(who);
    }
    auto same = unchanged_in_place(plan.replaced_rows, wanted, root, known);
    InPlace& out = plan.in_place;
    for (size_t w = 0; w < wanted.size(); ++w) {
        if (!same[w]) continue;
        const auto who = wanted_by[w];
        ++out.count;
        out.paths.insert(*wanted[w].dest);
        if (out.of.empty()) {
            out.of.resize(inputs.size());
            for (size_t i = 0; i < inputs.size(); ++i) out.of[i].assign(inputs[i].plan.files.size(), 0);
        }
        out.of[who.first][who.second] = 1;
    }
    if (out.count)
        std::erase_if(plan.remove_files,
                      [&](const PathText& p) { return out.paths.count(p) || (ends_with_ascii(p, ".pyc") && bytecode_of(p, out.paths)); });
}

Expected<void> check_free_space(const InstallResult& result, const InstallContext& ctx) {
    uint64_t needed = 0;
    for (const auto& c : result.installed) needed += c.bytes;
    if (auto free = fileops::free_space(ctx.scheme.purelib); free && needed + (needed / 50) > *free)
        return fail(ExitCode::DiskFull, "install.no_space",
                    {{"path", ctx.scheme.purelib.string()}, {"needed", str::human_bytes(needed)}, {"free", str::human_bytes(*free)}});
    return {};
}

}  // namespace envfix::installer
