#include "envfix/matrix/driver_rules.hpp"

#include <algorithm>

#include "envfix/common/strings.hpp"

namespace envfix::matrix {

std::optional<RuntimeNeed> runtime_need(const Matrix& m, const Variant& v, OsKind os) {
    if (v.is_cpu()) return std::nullopt;
    const Toolkit* tk = m.toolkit(*v.cuda);
    if (!tk || tk->updates.empty()) return std::nullopt;
    RuntimeNeed need;
    need.toolkit = v.toolkit;
    need.cuda = *v.cuda;
    // An unknown update ("12.8") needs what the newest update of that toolkit needs: safe.
    const ToolkitUpdate* up = &tk->updates.back();
    need.update_known = tk->updates.size() == 1;
    for (const auto& u : tk->updates)
        if (u.version == v.toolkit) {
            up = &u;
            need.update_known = true;
        }
    bool windows = os == OsKind::Windows;
    need.exact = windows ? up->windows_min : up->linux_min;
    need.figure_confirmed = !(windows && up->windows_confidence == Confidence::Unconfirmed);
    if (const CompatFloor* f = m.floor(v.cuda->major)) need.floor = windows ? f->windows_min : f->linux_min;
    return need;
}

RuntimeVerdict check_runtime(const Matrix& m, const Variant& v, OsKind os, const std::optional<DriverVersion>& driver) {
    RuntimeVerdict r;
    if (v.is_cpu()) {
        r.fit = RuntimeFit::NotNeeded;
        r.reason = msg("plan.runtime.cpu");
        return r;
    }
    r.need = runtime_need(m, v, os);
    if (!r.need) {  // the loader rejects variants whose toolkit is missing; defensive only
        r.fit = RuntimeFit::Unknown;
        r.reason = msg("plan.runtime.unknown_toolkit", {{"toolkit", v.toolkit}});
        return r;
    }
    const RuntimeNeed& n = *r.need;
    std::string os_name(os_key(os));
    if (!driver) {
        r.fit = RuntimeFit::Unknown;
        r.reason = msg("plan.runtime.unknown", {{"toolkit", n.toolkit}, {"need", n.exact.to_string()}, {"os", os_name}});
        return r;
    }
    std::string d = driver->to_string();
    if (*driver >= n.exact) {
        r.fit = RuntimeFit::Exact;
        r.reason = msg("plan.runtime.exact", {{"driver", d}, {"toolkit", n.toolkit}, {"need", n.exact.to_string()}, {"os", os_name}});
    } else if (n.floor && *driver >= *n.floor) {
        r.fit = RuntimeFit::MinorCompat;
        r.reason = msg("plan.runtime.compat",
                       {{"driver", d}, {"toolkit", n.toolkit}, {"need", n.exact.to_string()}, {"floor", n.floor->to_string()}});
    } else {
        r.fit = RuntimeFit::TooOld;
        r.reason = msg("plan.runtime.too_old", {{"driver", d},
                                                {"toolkit", n.toolkit},
                                                {"need", n.exact.to_string()},
                                                {"floor", n.floor ? n.floor->to_string() : n.exact.to_string()}});
    }
    return r;
}

GpuDriverVerdict check_gpu_driver(const Matrix& m, ComputeCapability cc, const std::optional<DriverVersion>& driver,
                                  const std::string& label) {
    GpuDriverVerdict v;
    const Architecture* a = m.architecture(cc);
    if (a) {
        v.first_branch = a->first_driver;
        v.last_branch = a->last_driver;
    }
    if (!driver || !a) return v;  // Unknown, nothing to say
    std::string family = a->family;
    int branch = driver->branch();
    if (a->first_driver && branch < *a->first_driver) {
        v.fit = GpuDriverFit::TooOld;
        v.reason = msg("plan.gpu_driver.too_old",
                       {{"driver", driver->to_string()}, {"family", family}, {"gpu", label}, {"first", std::to_string(*a->first_driver)}});
    } else if (a->last_driver && branch > *a->last_driver + 4) {
        // Branch numbers of one release family span a few numbers (R580 drivers are 580-584).
        v.fit = GpuDriverFit::TooNew;
        v.reason = msg("plan.gpu_driver.too_new",
                       {{"driver", driver->to_string()}, {"family", family}, {"gpu", label}, {"last", std::to_string(*a->last_driver)}});
    } else {
        v.fit = GpuDriverFit::Ok;
        if (a->first_driver)
            v.reason =
                msg("plan.gpu_driver.ok",
                    {{"driver", driver->to_string()}, {"family", family}, {"gpu", label}, {"first", std::to_string(*a->first_driver)}});
    }
    return v;
}

std::optional<DriverVersion> driver_needed(const Matrix& m, const Variant& v, OsKind os, const std::vector<ComputeCapability>& gpus) {
    auto need = runtime_need(m, v, os);
    if (!need) return std::nullopt;
    DriverVersion d = need->exact;
    for (auto cc : gpus)
        if (const Architecture* a = m.architecture(cc); a && a->first_driver) {
            auto first = DriverVersion::parse(std::to_string(*a->first_driver));
            if (first && *first > d) d = *first;
        }
    return d;
}

}  // namespace envfix::matrix
