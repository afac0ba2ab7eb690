#!/usr/bin/env python3
"""HTTP listener benchmark for scripts/bench (issue 45): how fast the token's /metrics
answers with the listener idle, and while a client holds the daemon's descriptor limit's
worth of connections (256, set with prlimit) from 8 loopback addresses, trickling a header
line on each every 250 ms without the token and opening again each one the daemon closes.

    scripts/bench_http.py DROPCUT_BINARY WORK_DIR

Prints a markdown section on stdout; exits 1 if the daemon misbehaves. Targets: every
/metrics answered during the attack, the slowest within 1 s, the daemon never holding
more than its limit less 32 descriptors.
"""
import os, shutil, signal, socket, statistics, subprocess, sys, threading, time

dropcut, work = sys.argv[1], sys.argv[2]
token, limit, seconds = "bench-token-0123456789abcdef", 256, 15
root = os.path.join(work, "http")
shutil.rmtree(root, ignore_errors=True)
os.makedirs(os.path.join(root, "inbox"))
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
config = os.path.join(root, "dropcut.yaml")
with open(config, "w") as f:
    f.write(f"state_dir: state\nhttp:\n  listen: 127.0.0.1:{port}\n  token: {token}\nfolders:\n"
            f"  - {{ name: bench, inbox: inbox, outbox: outbox, failed: failed, after_success: delete }}\n")
env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "JOURNAL_STREAM")}
env["DROPCUT_HTTP_REQUEST_MS"] = "3000"
log = open(os.path.join(root, "daemon.log"), "w")
daemon = subprocess.Popen(["prlimit", f"--nofile={limit}:{limit}", "--", dropcut, "watch", "--config", config],
                          stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)


def metrics():
    """Seconds the token's GET /metrics took, or None if it was not answered in 10 s."""
    began = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(f"GET /metrics HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nauthorization: Bearer {token}\r\n"
                      "connection: close\r\n\r\n".encode())
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        return time.monotonic() - began if answer.startswith(b"HTTP/1.1 200") else None
    except OSError:
        return None


deadline = time.monotonic() + 20
while metrics() is None:
    if daemon.poll() is not None or time.monotonic() > deadline:
        sys.exit(f"bench: the daemon did not listen; see {root}/daemon.log")
    time.sleep(0.05)

idle = [metrics() for _ in range(50)]
if None in idle:
    sys.exit("bench: /metrics failed on an idle listener")

stopping, opened, peak = False, 0, 0


def attack():
    global opened, peak
    sockets = [None] * limit
    rounds = 0
    while not stopping:
        for i in range(limit):
            s = sockets[i]
            if s is not None:
                try:
                    s.send(f"x-trickle-{rounds}: {i}\r\n".encode(), socket.MSG_DONTWAIT)
                except OSError:
                    s.close()
                    sockets[i] = s = None
            if s is None:
                try:
                    s = socket.socket()
                    s.settimeout(0.3)
                    s.bind((f"127.0.0.{2 + i % 8}", 0))
                    s.connect(("127.0.0.1", port))
                    s.send(b"GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\n")
                    sockets[i] = s
                    opened += 1
                except OSError:
                    s.close()
        peak = max(peak, sum(s is not None for s in sockets))
        rounds += 1
        time.sleep(0.25)
    for s in sockets:
        if s is not None:
            s.close()


attacker = threading.Thread(target=attack)
attacker.start()
time.sleep(2)
during, most_fds = [], 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    during.append(metrics())
    most_fds = max(most_fds, len(os.listdir(f"/proc/{daemon.pid}/fd")))
    time.sleep(0.1)
stopping = True
attacker.join()
daemon.send_signal(signal.SIGTERM)
if daemon.wait(timeout=60) != 0:
    sys.exit(f"bench: the daemon exited with {daemon.returncode}; see {root}/daemon.log")

answered = [t for t in during if t is not None]
failed = len(during) - len(answered)
idle_median, attack_median = statistics.median(idle), statistics.median(answered) if answered else float("nan")
slowest = max(answered) if answered else float("nan")
met = failed == 0 and slowest <= 1.0 and most_fds <= limit - 32
print(f"\n### HTTP listener under a trickling client (descriptor limit {limit}, {seconds} s)\n")
print("| measure | under attack | idle | ratio | target |\n|---|---|---|---|---|")
print(f"| /metrics, median | {attack_median * 1000:.1f} ms | {idle_median * 1000:.1f} ms | {attack_median / idle_median:.1f}× | |")
print(f"| /metrics, slowest | {slowest * 1000:.1f} ms | {max(idle) * 1000:.1f} ms | | ≤ 1000 ms: **{'met' if slowest <= 1.0 else 'NOT met'}** |")
print(f"| /metrics not answered | {failed} of {len(during)} | 0 of {len(idle)} | | 0 |")
print(f"| daemon's descriptors, most | {most_fds} of {limit} | | | ≤ {limit - 32} |")
print(f"| attacker's connections | {opened} opened, {peak} at once | | | |")
print(f"\n{'HTTP targets met' if met else 'HTTP targets NOT met'}.")
