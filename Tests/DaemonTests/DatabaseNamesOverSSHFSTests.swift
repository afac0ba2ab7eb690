import Foundation
import Logging
import Synchronization
import Testing
import TestSupport
@testable import DropcutDaemon

/// Two hosts publishing outputs of one name at the same moment through sshfs without
/// hard links — each through its own mount, so each sees the outbox under another
/// path — through the daemon's commit (`JobRunner.commit`: a single output is a set of
/// one), their names reserved in a real PostgreSQL first (`DatabaseLeases.reserve`, asked
/// before each name is tried): every round, each host's file under a name of its own, its
/// own bytes, and the database's reservations saying the same.
@Suite(.serialized, .tags(.slow)) struct DatabaseNamesOverSSHFSTests {
    /// One "host": its own connection to the database, its own mount, its own job runner.
    final class Host: @unchecked Sendable {
        let runner: JobRunner
        let leases: DatabaseLeases
        let mount: SSHFSMount
        let name: String

        init(_ name: String, server: PostgresServer, sftp: SFTPServer, state: String) throws {
            self.name = name
            let database = PostgresCoordinator(conninfo: server.conninfo, target: name, host: name, timeout: .seconds(5))
            leases = DatabaseLeases(database: database, owner: HostIdentity(host: name, machineID: "m", bootID: "b", pid: 1),
                                    leaseTimeout: .seconds(60), logger: Logger(label: name))
            mount = try SSHFSMount(sftp, hardLinks: false)
            runner = JobRunner(store: JobStore(stateDirectory: state), logger: Logger(label: name), keeper: leases,
                               metrics: DaemonMetrics(version: "test", workers: 1))
            try runner.store.prepare()
        }

        /// The folder whose outbox is this host's mount of the share.
        var folder: FolderConfig {
            FolderConfig(name: "f", inbox: mount.file("inbox"), outbox: mount.path, failed: mount.file("failed"))
        }

        /// Claims a new job for round `round` (a clip of its own) and holds it.
        func job(round: Int) throws -> JobRecord {
            let clip = PostgresCoordinator.Clip(folder: "f", name: "\(name)-\(round).mp4", size: 1, modifiedNanoseconds: Int64(round))
            try leases.database.offer([(clip, JobRecord.newID())])
            let held = try #require(try leases.database.claimOldest(in: "f", lease: .seconds(60), claim: JobRecord.newID(), among: [clip.name]))
            var record = JobRecord(id: held.claim ?? "", folder: "f", input: clip.name, sidecars: [], state: .committing)
            record.farmJob = held.job
            record.epoch = held.epoch
            _ = try leases.hold(record, name: record.claim, claimedDirectory: "/nowhere")
            return record
        }
    }

    final class Log: Sendable {
        let entries = Mutex<[(round: Int, host: String, name: String, began: ContinuousClock.Instant, ended: ContinuousClock.Instant)]>([])
    }

    @Test func twoHostsPublishingOneNameGetOneEach() async throws {
        let rounds = 40
        let server = try await PostgresServer()
        let sftp = try SFTPServer()
        let state = try TemporaryDirectory()
        let hosts = try ["a", "b"].map { try Host($0, server: server, sftp: sftp, state: state.path) }
        _ = try hosts[0].leases.migrate()
        let log = Log()
        for round in 0..<rounds {
            let jobs = try hosts.map { try $0.job(round: round) }
            // Each host's rendered file, in its mount of the outbox, under its temporary name.
            let temporaries = try zip(hosts, jobs).map { host, job in
                let path = host.mount.file(".clip-\(round).mp4.\(job.id).partial")
                try Data("\(host.name) round \(round)".utf8).write(to: URL(fileURLWithPath: path))
                return path
            }
            // Each job rendered, its output about to be committed (as the worker left it).
            let committing = try zip(jobs, temporaries).map { job, temporary in
                var record = job
                var info = stat()
                try #require(stat(temporary, &info) == 0, "\(temporary) is not there")
                record.recordSingleOutput("clip-\(round).mp4", temporary: temporary, inode: UInt64(info.st_ino))
                return record
            }
            let start = ContinuousClock.now + .milliseconds(30)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, host) in hosts.enumerated() {
                    group.addTask {
                        try await OwnThread.run {
                            // Both at one instant: a spin to the same deadline.
                            while ContinuousClock.now < start {}
                            let began = ContinuousClock.now
                            var record = committing[index]
                            try host.runner.commit(&record, folder: host.folder)
                            let published = record.output ?? "(no output)"
                            #expect(record.state == .committed && record.deliverables?.first?.output == record.output)
                            #expect(access(temporaries[index], F_OK) != 0, "the temporary name is left")
                            log.entries.withLock {
                                $0.append((round, host.name, (published as NSString).lastPathComponent, began, ContinuousClock.now))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let entries = log.entries.withLock { $0 }
        var overlapping = 0
        for round in 0..<rounds {
            let published = entries.filter { $0.round == round }
            #expect(Set(published.map(\.name)) == ["clip-\(round).mp4", "clip-\(round)-1.mp4"], "round \(round): \(published.map(\.name))")
            for entry in published {
                let text = FileManager.default.contents(atPath: (sftp.export as NSString).appendingPathComponent(entry.name))
                #expect(text == Data("\(entry.host) round \(round)".utf8), "round \(round): \(entry.name) does not hold \(entry.host)'s file")
            }
            if published.count == 2, published[0].began < published[1].ended && published[1].began < published[0].ended { overlapping += 1 }
        }
        // Nothing else in the outbox (no temporary file, no third name).
        let files = try FileManager.default.contentsOfDirectory(atPath: sftp.export).filter { $0.hasPrefix("clip-") || $0.hasPrefix(".clip-") }
        #expect(files.count == rounds * 2, "\(files.sorted())")
        // The database gave each name to the job whose file has it.
        let connection = try PostgresConnection(conninfo: server.conninfo, target: "check")
        let reserved = try connection.query("SELECT o.name, j.clip_name FROM dropcut_output_names o JOIN dropcut_jobs j ON j.id = o.job")
        let owner = Dictionary(reserved.compactMap { row in row[0].flatMap { name in row[1].map { (name, $0) } } }, uniquingKeysWith: { a, _ in a })
        for entry in entries { #expect(owner[entry.name] == "\(entry.host)-\(entry.round).mp4", "\(entry.name)") }
        // The race happened: both hosts were publishing at once in most rounds.
        #expect(overlapping >= rounds / 4, "only \(overlapping) of \(rounds) rounds overlapped")
        print("DatabaseNamesOverSSHFSTests: 2 hosts x \(rounds) rounds over sshfs without hard links, \(overlapping) rounds overlapping")
    }
}
