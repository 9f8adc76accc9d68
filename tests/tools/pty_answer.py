#!/usr/bin/env python3
"""Runs a program on a pseudo-terminal, as a person at a terminal would, and answers its first
question. Standard library only.

Usage: pty_answer.py ANSWER PROGRAM [ARGS...]

Waits for a prompt ending in "] " (envfix's "[Y/n] " / "[y/N] "), types ANSWER and Enter, and
prints everything the program wrote (stdout and stderr share the terminal). Exits with the
program's exit code; 124 where no prompt came within 60 s. ANSWER "-": no question is expected,
the program only runs on the terminal.
"""
import os, pty, select, sys, time


def main():
    answer, argv = sys.argv[1], sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    seen, answered, deadline = b"", answer == "-", time.time() + 60
    while True:
        if not answered and time.time() > deadline:
            os.kill(pid, 9)
            sys.stdout.write(seen.decode(errors="replace") + "\n(no prompt)\n")
            os.waitpid(pid, 0)
            sys.exit(124)
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the program ended: the terminal is gone
            break
        if not chunk:
            break
        seen += chunk
        if not answered and seen.rstrip(b" ").endswith(b"]"):
            os.write(fd, answer.encode() + b"\n")
            answered = True
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(seen.decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8)


main()
