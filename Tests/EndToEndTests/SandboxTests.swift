import Foundation
import Testing
import TestSupport

/// dropcut under pieces of the sandbox of `systemd/dropcut.service`, one at a time and
/// without systemd (PackageInstallTests runs the whole unit under a real one):
/// `sandbox_exec.py` applies the kernel's PR_SET_MDWE (what newer systemd uses for
/// MemoryDenyWriteExecute=; systemd 252 uses a seccomp filter that also refuses any
/// PROT_EXEC mprotect, and scripts/check-package runs under that) and SystemCallFilter= (a
/// seccomp allow-list computed from the unit's own SystemCallFilter= lines, refusing the
/// rest with EPERM as SystemCallErrorNumber= says), then runs the daemon on real clips.
@Suite(.tags(.slow)) struct SandboxTests {
    static let helper = Repository.path("Tests/EndToEndTests/sandbox_exec.py")

    /// The system calls in `item`: a name, or a systemd group (`@system-service`) expanded
    /// with `systemd-analyze syscall-filter`, nested groups included.
    static func syscalls(_ item: String) async throws -> Set<String> {
        guard item.hasPrefix("@") else { return [item] }
        let listing = try await Command.runChecked("systemd-analyze", ["syscall-filter", "--no-pager", item])
        var names = Set<String>()
        for line in listing.split(separator: "\n").dropFirst() {
            let word = line.trimmingCharacters(in: .whitespaces)
            if word.isEmpty || word.hasPrefix("#") { continue }
            names.formUnion(try await syscalls(word))
        }
        return names
    }

    /// The unit's effective allow-list: the first SystemCallFilter= allows, later `~` lines
    /// take away, later plain lines add back (systemd.exec(5)).
    static func unitAllowList() async throws -> Set<String> {
        var allowed = Set<String>()
        let unit = try String(contentsOfFile: Repository.path("systemd/dropcut.service"), encoding: .utf8)
        for line in unit.split(separator: "\n") where line.hasPrefix("SystemCallFilter=") {
            var value = line.dropFirst("SystemCallFilter=".count)
            let deny = value.hasPrefix("~")
            if deny { value = value.dropFirst() }
            for item in value.split(separator: " ") {
                let names = try await syscalls(String(item))
                if deny { allowed.subtract(names) } else { allowed.formUnion(names) }
            }
        }
        return allowed
    }

    func writeList(_ names: Set<String>, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("syscalls.txt")
        try names.sorted().joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `dropcut watch --once` on `h`'s config, run by the helper with `sandbox` options.
    func watchOnce(_ h: DaemonHarness, sandbox: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Command.run("python3", [Self.helper] + sandbox + ["--", try BuildProducts.executable(named: "dropcut"),
                                                              "watch", "--once", "--config", h.configPath])
    }

    @Test func theHelperReallyRefusesWritableExecutableMemory() async throws {
        let open = try await Command.run("python3", [Self.helper, "--probe-wx"])
        #expect(open.status == 3, "without MDWE the probe maps W+X: \(open.stdout)\(open.stderr)")
        let refused = try await Command.run("python3", [Self.helper, "--mdwe", "--probe-wx"])
        #expect(refused.status == 0, "PR_SET_MDWE refuses it: \(refused.stdout)\(refused.stderr)")
    }

    @Test func theUnitsAllowListIsWhatSystemdDocuments() async throws {
        let allowed = try await Self.unitAllowList()
        print("SystemCallFilter= of dropcut.service allows \(allowed.count) system calls")
        for needed in ["openat", "renameat2", "linkat", "fsync", "flock", "inotify_add_watch", "sendmsg", "fchown", "mmap", "setpriority"] {
            #expect(allowed.contains(needed), "\(needed)")
        }
        for refused in ["mount", "reboot", "setuid", "init_module", "sched_setscheduler", "setrlimit", "ptrace"] {
            #expect(!allowed.contains(refused), "\(refused)")
        }
    }

    @Test func watchRendersUnderTheUnitsSystemCallFilterAndMemoryDenyWriteExecute() async throws {
        let h = try DaemonHarness()
        try h.drop("plain.mp4")
        try h.drop("titled.mp4")
        // Text (FreeType), a slow-motion range (the time-stretcher) and a fill to a new size.
        try h.write("titled.yaml", """
            version: 1
            output: { filename: "{name}.square.mp4", size: 240x240, fit: fill }
            overlays:
              - text: "sandboxed {name}"
                anchor: bottom
            clips:
              - source: "{input}"
                speed:
                  - { range: [0.2, 0.6], rate: 0.5 }

            """)
        // fit: smart: OpenCV's detectors (C++, its own threads) under the same sandbox.
        try h.drop("smart.mp4")
        try h.write("smart.yaml", "version: 1\noutput: { filename: \"{name}.vertical.mp4\", size: 180x320, fit: smart }\n")
        let list = try await writeList(try Self.unitAllowList(), in: h.dir)
        let result = try await watchOnce(h, sandbox: ["--mdwe", "--syscalls", list])
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("3 done, 0 failed"))
        #expect(h.files(h.outbox) == ["plain.dropcut.mp4", "smart.vertical.mp4", "titled.square.mp4"])
        let square = try FFprobe.stream("video", of: (h.outbox as NSString).appendingPathComponent("titled.square.mp4"))
        #expect(square.map { [$0.width, $0.height] } == [240, 240])
        #expect(h.files(h.archive) == ["plain.mp4", "smart.mp4", "smart.yaml", "titled.mp4", "titled.yaml"])
    }

    @Test func theFilterCanFailTheDaemon() async throws {
        // Without fsync no job record is durable, so nothing may be claimed: the daemon
        // says why and the clip stays where it was dropped.
        let h = try DaemonHarness(retries: 0)
        try h.drop("clip.mp4")
        let list = try await writeList(try Self.unitAllowList().subtracting(["fsync", "fdatasync"]), in: h.dir)
        let result = try await watchOnce(h, sandbox: ["--syscalls", list])
        #expect(result.status == 1)
        #expect(result.stdout.contains("0 done, 1 failed"))
        #expect(result.stderr.contains("fsync: Operation not permitted"), "stderr:\n\(result.stderr)")
        #expect(h.files(h.inbox) == ["clip.mp4"])
        #expect(h.files(h.outbox) == [])
    }

    /// A clip that cannot be claimed (no fsync: no durable job record) is logged once,
    /// not at every poll — ten polls a second would otherwise flood the journal, whose
    /// rate limit then swallows the events that matter.
    @Test func anUnclaimableClipIsLoggedOncePerCause() async throws {
        let h = try DaemonHarness(retries: 0)
        try h.drop("clip.mp4")
        let list = try await writeList(try Self.unitAllowList().subtracting(["fsync", "fdatasync"]), in: h.dir)
        // The running daemon (not --once), stopped by `timeout` after 3 s: about 30 polls.
        let result = try await Command.run("timeout", ["-s", "TERM", "3", "python3", Self.helper, "--syscalls", list, "--",
                                                 try BuildProducts.executable(named: "dropcut"), "watch", "--config", h.configPath])
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("cannot claim clip.mp4") }
        #expect(lines.count == 1, "\(result.stderr.suffix(1500))")
        #expect(h.files(h.inbox) == ["clip.mp4"])
    }
}
