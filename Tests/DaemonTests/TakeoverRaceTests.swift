import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// Several processes find the same claims expired and rename them at the same instant
/// (`TakeoverRace`, which uses the daemon's own observer and takeover): for every claim
/// exactly one process wins, the folder holds what it held, under the winner's name only.
/// Through the directory, and through two sshfs mounts of it, half the racers each (the
/// test's own sshd: each mount its own connection and caches, every rename a request the
/// server decides — racers on the directory itself would always be first).
@Suite(.serialized, .tags(.slow)) struct TakeoverRaceTests {
    @Test(arguments: [false, true])
    func exactlyOneOfSeveralProcessesTakesEachExpiredClaim(throughSSHFS: Bool) throws {
        let dir = try TemporaryDirectory()
        let server = throughSSHFS ? try SFTPServer() : nil
        let root = server?.export ?? dir.path
        let claimed = (root as NSString).appendingPathComponent("claimed")
        let claims = (0..<20).map { String(format: "20261123T114124Z-00000000%04d", $0) }
        for id in claims {
            let folder = (claimed as NSString).appendingPathComponent(id)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try "clip \(id)".write(toFile: (folder as NSString).appendingPathComponent("clip.mov"), atomically: true, encoding: .utf8)
            try ClaimLease(owner: ClaimLeaseTests.owner, record: ClaimLeaseTests.record(id)).write(in: folder, durable: false)
        }
        // Directory entries cached 1 s, as docs/scale-out.md asks of inboxes on sshfs.
        let mounts = try server.map { server in try (0..<2).map { _ in try SSHFSMount(server, options: ["dcache_timeout=1"]) } } ?? []
        defer { for mount in mounts { mount.unmount() } }
        let racers = 6
        let timeoutMilliseconds = 500
        let executable = try BuildProducts.executable(named: "TakeoverRace")
        var processes: [(Process, Pipe, Pipe, Pipe)] = []
        for racer in 0..<racers {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            let through = mounts.isEmpty ? claimed : (mounts[racer % 2].path as NSString).appendingPathComponent("claimed")
            process.arguments = [through, "\(timeoutMilliseconds)", "20", "racer\(racer)"] + claims
            let input = Pipe(), output = Pipe(), errors = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            processes.append((process, input, output, errors))
        }
        // Every racer has watched every lease expire by its own clock before any renames
        // (on a loaded machine one may start seconds after another; given a fixed start
        // instant, it would see claims renamed before their leases had expired for it).
        var readiness: [String] = []
        for (_, _, output, _) in processes {
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { break }
                line.append(more)
            }
            readiness.append(String(decoding: line, as: UTF8.self))
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let startAt = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) + 300_000_000
        for (_, input, _, _) in processes {
            input.fileHandleForWriting.write(Data("\(startAt)\n".utf8))
            try input.fileHandleForWriting.close()
        }
        var winners: [String: [String]] = [:]
        for (racer, (process, _, output, errors)) in processes.enumerated() {
            #expect(readiness[racer] == "ready\n", "racer \(racer) said \(readiness[racer])")
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "racer \(racer): \(problems)")
            let lines = text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(lines.count == claims.count, "racer \(racer) printed \(text)")
            for line in lines where line.count == 2 && line[1] == "won" {
                let index = try #require(claims.firstIndex(of: line[0]))
                winners[line[0], default: []].append("racer\(racer)-\(index)")
            }
        }
        for id in claims {
            #expect(winners[id]?.count == 1, "\(id) won by \(winners[id] ?? [])")
        }
        // Only the winners' names are there, each with the clip and its holder's last lease.
        let expected = Set(winners.values.flatMap { $0 })
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: claimed)) == expected)
        for (id, names) in winners {
            guard let name = names.first else { continue }
            let folder = (claimed as NSString).appendingPathComponent(name)
            #expect(try String(contentsOfFile: (folder as NSString).appendingPathComponent("clip.mov"), encoding: .utf8) == "clip \(id)")
            #expect(ClaimLease.read(claimDirectory: folder, name: ClaimName(job: id)).reading
                    == .lease(ClaimLease(owner: ClaimLeaseTests.owner, record: ClaimLeaseTests.record(id))))
        }
    }
}
