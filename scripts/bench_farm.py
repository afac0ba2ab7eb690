#!/usr/bin/env python3
"""Farm benchmark for scripts/bench (issue 33): what claiming costs with three hosts on
one inbox and near-empty jobs, decided by a PostgreSQL coordinator against the shared-folder
protocol, on the same machine.

    scripts/bench_farm.py DROPCUT_BINARY WORK_DIR [CLIPS]

Three `dropcut watch` daemons (each its own state folder and DROPCUT_HOSTNAME, one worker,
poll 0.1 s, settle 0.2 s) share one inbox; CLIPS (default 150) copies of one tiny clip
(64x64, 0.2 s) are dropped at once. Per job, each daemon logs how long its claim took
(DROPCUT_CLAIM_MS on job-claimed: the database's decision, the rename into the claim
folder and the record; for the shared folder the lease written and the rename); the
medians and 99th percentiles of those, and the jobs finished per second from the drop to
the last archive, are printed as a markdown section. A PostgreSQL 15 cluster is made in
WORK_DIR and started on a free port on 127.0.0.1 (as the `postgres` user when run as root).
Exits 1 if a run misbehaves: a clip not rendered exactly once.
"""
import os, re, shutil, signal, socket, statistics, subprocess, sys, time

dropcut, work = sys.argv[1], sys.argv[2]
clips = int(sys.argv[3]) if len(sys.argv) > 3 else 150
os.makedirs(work, exist_ok=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_postgres(argv):
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", "--reset-env"] + argv if os.getuid() == 0 else argv


def start_postgres(root):
    binaries = "/usr/lib/postgresql/" + max(os.listdir("/usr/lib/postgresql"), key=int) + "/bin"
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    if os.getuid() == 0:
        import pwd
        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
        os.chmod(root, 0o700)
    data = os.path.join(root, "data")
    subprocess.run(as_postgres([f"{binaries}/initdb", "-D", data, "-U", "dropcut", "--auth=trust", "--no-sync",
                                "--no-instructions"]), check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    server = subprocess.Popen(as_postgres([f"{binaries}/postgres", "-D", data, "-p", str(port), "-k", root,
                                           "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while subprocess.run([f"{binaries}/pg_isready", "-h", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL).returncode != 0:
        if time.monotonic() > deadline:
            sys.exit("bench: PostgreSQL did not start")
        time.sleep(0.1)
    subprocess.run([f"{binaries}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "dropcut", "dropcut"], check=True)
    return server, port


def run(name, coordinator):
    root = os.path.join(work, name)
    shutil.rmtree(root, ignore_errors=True)
    for folder in ["inbox", "outbox", "failed", "archive"]:
        os.makedirs(os.path.join(root, folder))
    hosts = []
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "JOURNAL_STREAM")}
    for host in ["a", "b", "c"]:
        config = os.path.join(root, f"{host}.yaml")
        with open(config, "w") as f:
            f.write(f"state_dir: state-{host}\npoll_interval: 0.1\nsettle: 0.2\nworkers: 1\nlease_timeout: 10\n"
                    + (f"coordinator: {coordinator}\n" if coordinator else "")
                    + "folders:\n  - { name: bench, inbox: inbox, outbox: outbox, failed: failed, archive: archive }\n")
        log = open(os.path.join(root, f"{host}.log"), "w")
        hosts.append((subprocess.Popen([dropcut, "watch", "--config", config], stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=log, env=dict(env, DROPCUT_HOSTNAME=f"host-{host}")), log, host))
    deadline = time.monotonic() + 30
    while not all(os.path.exists(os.path.join(root, f"state-{h}", "status.json")) for _, _, h in hosts):
        if time.monotonic() > deadline:
            sys.exit(f"bench: the daemons of {name} did not start; see {root}/*.log")
        time.sleep(0.05)
    staging = os.path.join(root, "staging")
    os.makedirs(staging)
    old = time.time() - 60
    for i in range(clips):
        path = os.path.join(staging, f"c{i:04d}.mp4")
        shutil.copyfile(clip, path)
        os.utime(path, (old, old))
    began = time.monotonic()
    for i in range(clips):
        os.rename(os.path.join(staging, f"c{i:04d}.mp4"), os.path.join(root, "inbox", f"c{i:04d}.mp4"))
    deadline = time.monotonic() + clips * 2 + 60
    while len(os.listdir(os.path.join(root, "archive"))) < clips:
        if time.monotonic() > deadline:
            sys.exit(f"bench: {name}: {len(os.listdir(os.path.join(root, 'archive')))} of {clips} archived; see {root}/*.log")
        time.sleep(0.02)
    elapsed = time.monotonic() - began
    for process, log, _ in hosts:
        process.send_signal(signal.SIGTERM)
        if process.wait(timeout=60) != 0:
            sys.exit(f"bench: a daemon of {name} exited with {process.returncode}")
        log.close()
    outputs = sorted(os.listdir(os.path.join(root, "outbox")))
    if outputs != sorted(f"c{i:04d}.dropcut.mp4" for i in range(clips)):
        sys.exit(f"bench: {name}: the outbox does not hold one output per clip ({len(outputs)} files)")
    claims, by_host = [], []
    for _, _, host in hosts:
        text = open(os.path.join(root, f"{host}.log")).read()
        found = [float(ms) for ms in re.findall(r"claimed .*?DROPCUT_CLAIM_MS=([0-9.]+)", text)]
        claims += found
        by_host.append(len(found))
    if len(claims) != clips:
        sys.exit(f"bench: {name}: {len(claims)} claims logged for {clips} clips")
    claims.sort()
    p99 = claims[min(len(claims) - 1, int(round(0.99 * (len(claims) - 1))))]
    return statistics.median(claims), p99, clips / elapsed, by_host


clip = os.path.join(work, "tiny.mp4")
if not os.path.exists(clip):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=30:duration=0.2",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=0.2", "-c:v", "libx264",
                    "-preset", "ultrafast", "-c:a", "aac", "-shortest", clip], check=True)

server, port = start_postgres(os.path.join(work, "postgres"))
try:
    database = run("farm-postgresql", f"postgresql://dropcut@127.0.0.1:{port}/dropcut")
finally:
    server.send_signal(signal.SIGINT)
    server.wait(timeout=60)
folder = run("farm-shared-folder", None)

print(f"\n### Farm: claiming with 3 hosts, {clips} near-empty jobs (64x64, 0.2 s), one machine\n")
print("| coordinator | claim median | claim p99 | jobs/s (drop to last archive) | jobs by host |")
print("|---|---:|---:|---:|---|")
for label, (median, p99, rate, by_host) in [("PostgreSQL", database), ("shared folder", folder)]:
    print(f"| {label} | {median:.2f} ms | {p99:.2f} ms | {rate:.1f} | {'/'.join(map(str, by_host))} |")
print(f"\nPostgreSQL against the shared folder: claim median {database[0] / folder[0]:.2f}x, "
      f"p99 {database[1] / folder[1]:.2f}x, throughput {database[2] / folder[2]:.2f}x.")
