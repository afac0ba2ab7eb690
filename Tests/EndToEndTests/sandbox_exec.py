#!/usr/bin/env python3
"""Runs a command under the kernel mechanisms behind two of dropcut.service's settings,
for SandboxTests (systemd itself does not run here):

  --mdwe           MemoryDenyWriteExecute=yes as newer systemd applies it where the kernel
                   has it (Linux >= 6.3): prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN)
  --syscalls FILE  SystemCallFilter= with SystemCallErrorNumber=EPERM: a seccomp
                   allow-list of the system call names in FILE (one per line); any other
                   call fails with EPERM, as under the unit
  --probe-wx       instead of running a command, try to map memory writable and
                   executable; exit 0 if refused, 3 if allowed

usage: sandbox_exec.py [--mdwe] [--syscalls FILE] [--probe-wx] [-- COMMAND ARGS...]
"""
import ctypes
import mmap
import os
import sys

PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1
SCMP_ACT_ERRNO_EPERM, SCMP_ACT_ALLOW = 0x00050000 | 1, 0x7FFF0000


def fail(message):
    print(f"sandbox_exec: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    mdwe, syscalls, probe, command = False, None, False, []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--mdwe":
            mdwe = True
        elif arg == "--syscalls":
            i += 1
            syscalls = argv[i]
        elif arg == "--probe-wx":
            probe = True
        elif arg == "--":
            command = argv[i + 1:]
            break
        else:
            fail(f"unknown argument {arg}")
        i += 1

    libc = ctypes.CDLL(None, use_errno=True)
    if mdwe and libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
        fail(f"prctl(PR_SET_MDWE): {os.strerror(ctypes.get_errno())}")

    if syscalls:
        seccomp = ctypes.CDLL("libseccomp.so.2")
        seccomp.seccomp_init.restype = ctypes.c_void_p
        seccomp.seccomp_init.argtypes = [ctypes.c_uint32]
        seccomp.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        seccomp.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
        seccomp.seccomp_load.argtypes = [ctypes.c_void_p]
        ctx = seccomp.seccomp_init(SCMP_ACT_ERRNO_EPERM)
        if not ctx:
            fail("seccomp_init failed")
        with open(syscalls) as names:
            for name in names.read().split():
                number = seccomp.seccomp_syscall_resolve_name(name.encode())
                if number < 0:
                    continue  # not a system call on this architecture
                rc = seccomp.seccomp_rule_add(ctx, SCMP_ACT_ALLOW, number, 0)
                if rc != 0:
                    fail(f"seccomp_rule_add({name}): {os.strerror(-rc)}")
        rc = seccomp.seccomp_load(ctx)
        if rc != 0:
            fail(f"seccomp_load: {os.strerror(-rc)}")

    if probe:
        try:
            mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        except OSError as error:
            print(f"writable+executable mapping refused: {error}")
            sys.exit(0)
        print("writable+executable mapping allowed")
        sys.exit(3)

    if not command:
        fail("no command")
    os.execv(command[0], command)


main(sys.argv[1:])
