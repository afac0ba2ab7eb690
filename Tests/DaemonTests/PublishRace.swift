import Foundation
import Testing
import TestSupport
@testable import PublishRacer

/// Runs `PublishRacer` processes against folders at once and checks what they left: every
/// racer's file under its own name, none lost, none replaced, nothing else in the folder.
struct PublishRace {
    /// Where each racer publishes (racer i uses `directories[i % count]`: several mounts
    /// of one share act as several hosts).
    var directories: [String]
    /// The folder holding the results, as the file server sees it (for the checks).
    var truth: String
    var racers: Int
    var rounds: Int
    var intervalMilliseconds: Int
    var method = "link"
    /// Each racer publishes a folder (as an HLS ladder is), its contents in `clip.m3u8`.
    var folders = false

    /// What the run measured.
    struct Outcome {
        /// Rounds in which at least two racers were publishing at the same moment.
        var overlappingRounds = 0
        /// Of those, the rounds whose every file ended whole under a name of its own: the
        /// promise kept where it was put to the test.
        var overlappingRoundsHeld = 0
        var seconds = 0.0
    }

    /// Starts every racer, waits for them, and records an issue for each broken promise.
    func run(sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        let racer = try BuildProducts.executable(named: "PublishRacer")
        let clock = Date()
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // Far enough ahead that every racer has started and written its first file.
        let start = (Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)) + 1_500_000_000
        var processes: [(Process, Pipe, Pipe)] = []
        for i in 0..<racers {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: racer)
            process.arguments = [directories[i % directories.count], "\(i)", "\(rounds)", "\(start)", "\(intervalMilliseconds)", method]
                + (folders ? ["folders"] : [])
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            processes.append((process, out, err))
        }
        // round -> [(racer, name, began, ended)]
        var results: [Int: [(racer: Int, name: String, began: Int64, ended: Int64)]] = [:]
        for (i, (process, out, err)) in processes.enumerated() {
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "racer \(i): \(errors)", sourceLocation: sourceLocation)
            for line in output.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count == 4, let round = Int(fields[0]), let began = Int64(fields[2]), let ended = Int64(fields[3]) else {
                    Issue.record("racer \(i) printed \(line)", sourceLocation: sourceLocation)
                    continue
                }
                results[round, default: []].append((i, String(fields[1]), began, ended))
            }
        }
        var outcome = Outcome(seconds: Date().timeIntervalSince(clock) - 1.5)
        var expectedFiles: Set<String> = []
        for round in 0..<rounds {
            let published = results[round] ?? []
            #expect(published.count == racers, "round \(round): \(published.count) of \(racers) published", sourceLocation: sourceLocation)
            var held = published.count == racers
            // Each publisher starts at the bare name and only passes taken ones: the
            // racers of a round hold exactly its first `racers` names, one each.
            let ext = folders ? "" : ".mp4"
            let names = Set((0..<racers).map { $0 == 0 ? "clip-\(round)\(ext)" : "clip-\(round)-\($0)\(ext)" })
            expectedFiles.formUnion(names)
            do {
                #expect(Set(published.map(\.name)) == names, "round \(round): \(published.map(\.name).sorted())",
                        sourceLocation: sourceLocation)
                if Set(published.map(\.name)) != names { held = false }
                for entry in published {
                    let path = (truth as NSString).appendingPathComponent(folders ? entry.name + "/clip.m3u8" : entry.name)
                    let expected = PublishRacer.contents(racer: entry.racer, round: round)
                    let found = FileManager.default.contents(atPath: path)
                    let holder = found.map { String(decoding: $0.prefix { $0 != 10 }, as: UTF8.self) } ?? "nothing"
                    #expect(found == expected, "round \(round): \(entry.name), published by racer \(entry.racer), holds \(holder)",
                            sourceLocation: sourceLocation)
                    if found != expected { held = false }
                    if folders {
                        // The whole folder, nothing merged into it.
                        let inside = try? FileManager.default.contentsOfDirectory(atPath: (truth as NSString).appendingPathComponent(entry.name))
                        #expect(inside?.sorted() == ["120p", "clip.m3u8"], "round \(round): \(entry.name) holds \(inside ?? [])",
                                sourceLocation: sourceLocation)
                        if inside?.sorted() != ["120p", "clip.m3u8"] { held = false }
                    }
                }
            }
            let sorted = published.sorted { $0.began < $1.began }
            if zip(sorted, sorted.dropFirst()).contains(where: { $1.began < $0.ended }) {
                outcome.overlappingRounds += 1
                if held { outcome.overlappingRoundsHeld += 1 }
            }
        }
        // Nothing else: no placeholder, lock or temporary file left, nothing lost.
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: truth))
        do {
            #expect(left == expectedFiles, "unexpected: \(left.subtracting(expectedFiles).sorted()), missing: \(expectedFiles.subtracting(left).sorted())",
                    sourceLocation: sourceLocation)
        }
        return outcome
    }
}
