"""Start a learner's kernel as the learner's account: ``python -I -S learner_kernel.py --uid U --gid G --homes DIR -- CMD``.

Gradescope mode has no bubblewrap, so the account is what keeps the grader's
files (the installed course_lib with the lab's reference, the bundle's secret,
the results) out of the kernel's reach (docs/grading.md, "Publishing to
Gradescope"). jupyter_client starts this file as root, in the grader's private
folder; it gives the kernel a private home of its own (owned by the account,
mode 0700) holding a copy of the connection file, drops every privilege for
good and execs the kernel there. It runs before the package is importable by
anyone (``-I -S``, standard library only), so it is run by path, not with ``-m``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="learner_kernel")
    parser.add_argument("--uid", type=int, required=True)
    parser.add_argument("--gid", type=int, required=True)
    parser.add_argument("--homes", required=True, help="a root-owned folder the kernel's private home is made in")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    arguments = parser.parse_args(argv)
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not command or arguments.uid == 0:
        parser.error("a kernel command after --, and an account other than root")

    home = tempfile.mkdtemp(prefix="home-", dir=arguments.homes)
    os.chown(home, arguments.uid, arguments.gid)
    os.chmod(home, 0o700)
    if "-f" in command[:-1]:  # the connection file stays in the grader's folder; the kernel reads its own copy
        at = command.index("-f") + 1
        copy = os.path.join(home, "kernel.json")
        shutil.copyfile(command[at], copy)
        os.chown(copy, arguments.uid, arguments.gid)
        os.chmod(copy, 0o600)
        command[at] = copy
    environment = dict(os.environ, HOME=home, TMPDIR=home)
    os.chdir(home)

    os.setgroups([])
    os.setgid(arguments.gid)
    os.setuid(arguments.uid)  # real, effective and saved ids: there is no way back to root
    if (os.getuid(), os.geteuid(), os.getgid(), os.getegid()) != (arguments.uid,) * 2 + (arguments.gid,) * 2:
        sys.exit("learner_kernel: could not drop to the learner's account")
    os.execvpe(command[0], command, environment)


if __name__ == "__main__":
    main()
