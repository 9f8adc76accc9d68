#pragma once
// Fault injection for the crash tests (docs/install.md#fault-injection). Every step of a
// transaction after which a crash leaves a distinct state on disk calls fault_point(). With
// ENVFIX_FAULT_AFTER=N the Nth call kills the process at once (SIGKILL: no destructor, no
// flush, as a power cut or `kill -9` would); "N:int" requests Ctrl-C there instead, so the
// graceful path runs. Unset: a relaxed counter increment and nothing else.
#include <cstdint>

namespace envfix::installer {

void fault_point();
uint64_t fault_points_passed();  // how many were passed in this process (tests size their range)

}  // namespace envfix::installer
