#pragma once
// Ctrl-C as a value: main() installs the handler; long operations poll interrupt_requested()
// and unwind cleanly (ExitCode::Interrupted), leaving every environment as it was.
namespace envfix {

void install_interrupt_handler();  // SIGINT/SIGTERM (POSIX), console control events (Windows)
bool interrupt_requested();
void request_interrupt();           // tests and fault injection

}  // namespace envfix
