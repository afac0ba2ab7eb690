import Foundation
import Testing
import TestSupport

/// vtt.js's WebVTT parser tests (mozilla/vtt.js, the parser Firefox used), run through
/// `dropcut probe --json` as a user runs it: each test's `.vtt` beside the JSON of the cues
/// vtt.js reads from it (which `tests.js` names). Cue count, start, end and text must agree
/// on at least 95 % of the files of `cue-times/`, `file-layout/`, `cue-settings/` and
/// `cuetext/` (a refused file counts as no cues), and where they do not, only on the files
/// `docs/captions.md` lists with the reason (vtt.js follows an older draft there, or a
/// limit of dropcut's applies) — so a new disagreement fails even above 95 %.
@Suite(.tags(.slow)) struct WebVTTConformanceTests {
    /// The files where the W3C parser algorithm (or a limit) and vtt.js differ: each is in
    /// docs/captions.md with its reason.
    static let differences: Set<String> = [
        "file-layout/header-no-new-line.vtt",     // the spec ends the header at a timing line: one cue
        "cue-times/min-top-digits.vtt",           // "000:00.000": three digits are hours, a third field is missing
        "cue-times/max-spots-over-sixty.vtt",     // 120 hours: past dropcut's 24-hour limit
        "cue-times/minimum-spots-over-sixty.vtt", // the same
    ]

    struct Case: Sendable {
        var vtt: String
        var json: String
    }

    /// The (vtt, json) pairs `tests.js` files compare, from every folder under `tests`.
    static func cases(in root: String) throws -> [Case] {
        let pattern = try NSRegularExpression(pattern: #"jsonEqual\w*\(\s*"([^"]+\.vtt)"\s*,\s*"([^"]+\.json)""#)
        var cases: [Case] = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let file = enumerator?.nextObject() as? String {
            guard file.hasSuffix(".js") else { continue }
            let text = try String(contentsOfFile: (root as NSString).appendingPathComponent(file), encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let vtt = Range(match.range(at: 1), in: text), let json = Range(match.range(at: 2), in: text) else { continue }
                cases.append(Case(vtt: String(text[vtt]), json: String(text[json])))
            }
        }
        return cases.sorted { $0.vtt < $1.vtt }
    }

    @Test func dropcutReadsVTTJSParserTestsAsVTTJSDoes() async throws {
        let root = try ConformanceData.folder("vttjs") + "/tests"
        let cases = try Self.cases(in: root)
        // Every folder the issue names is there, with its files.
        for folder in ["cue-times/", "file-layout/", "cue-settings/", "cuetext/"] {
            #expect(cases.filter { $0.vtt.hasPrefix(folder) }.count >= 5, "\(folder) has no tests")
        }
        #expect(cases.count >= 190)
        var agreed = 0
        var disagreed: [String] = []
        for test in cases {
            let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/" + test.json))) as? [String: Any]
            let expectedCues = try #require(expected?["cues"] as? [[String: Any]], "\(test.json) has no cues array")
            let result = try await DropcutProcess.run(["probe", "--json", root + "/" + test.vtt])
            var cues: [[String: Any]] = []
            if result.status == 0 {
                let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
                cues = try #require(report?["cues"] as? [[String: Any]], "\(test.vtt): \(result.stdout)")
            } else {
                // A refusal names the file.
                #expect(result.stderr.contains(test.vtt), "\(test.vtt): \(result.stderr)")
            }
            let same = cues.count == expectedCues.count && zip(cues, expectedCues).allSatisfy { got, want in
                guard let start = got["start"] as? Double, let end = got["end"] as? Double, let text = got["text"] as? String,
                      let wantStart = want["startTime"] as? Double, let wantEnd = want["endTime"] as? Double,
                      let wantText = want["text"] as? String else { return false }
                return abs(start - wantStart) < 0.0005 && abs(end - wantEnd) < 0.0005 && text == wantText
            }
            if same { agreed += 1 } else { disagreed.append(test.vtt) }
        }
        let share = Double(agreed) / Double(cases.count)
        print("vtt.js conformance: \(agreed) of \(cases.count) files agree (\(String(format: "%.1f", share * 100)) %); differ: \(disagreed)")
        #expect(share >= 0.95)
        #expect(Set(disagreed).subtracting(Self.differences).isEmpty, "new disagreements: \(Set(disagreed).subtracting(Self.differences).sorted())")
        // Each listed difference is still one (else the list and the docs are stale).
        #expect(Self.differences.subtracting(disagreed).isEmpty, "now agree: \(Self.differences.subtracting(disagreed).sorted())")
        let docs = try String(contentsOfFile: Repository.path("docs/captions.md"), encoding: .utf8)
        for file in Self.differences { #expect(docs.contains(file), "docs/captions.md does not list \(file)") }
    }
}
