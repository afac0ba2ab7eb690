import Testing
import TestSupport

/// `dropcut validate` as a user runs it: exit status and `file:line:col: message` output.
@Suite(.tags(.slow)) struct ValidateCommandTests {
    @Test func validRecipeIsReportedOK() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let recipe = try Fixtures.makeFile(in: dir.path, name: "ok.yaml", contents: "version: 1\n")

        let result = try await DropcutProcess.run(["validate", recipe])

        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "\(recipe): ok\n")
    }

    @Test func problemsArePrintedWithFileLineAndColumn() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let good = try Fixtures.makeFile(in: dir.path, name: "good.yaml", contents: "version: 1\n")
        let typo = try Fixtures.makeFile(in: dir.path, name: "typo.yaml", contents: "version: 1\noutptu:\n  fps: 30\n")
        let missing = dir.file("missing.yaml")

        let result = try await DropcutProcess.run(["validate", good, typo, missing])

        #expect(result.status == 1)
        #expect(result.stdout == "\(good): ok\n")  // every file is checked, good ones still reported
        #expect(result.stderr.contains("\(typo):2:1: unknown key 'outptu'"))
        // A file that cannot be read has no line to point at: its name alone.
        #expect(result.stderr.contains("\(missing): the recipe cannot read the file: No such file or directory"), "\(result.stderr)")
        #expect(!result.stderr.contains("\(missing):1:1"))
    }

    /// A raw ESC in a value is reported at its line and column, named; a bidi override
    /// in an output's name is refused, named.
    @Test func controlBytesAndBidiControlsAreNamedWhereTheyAre() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let escape = try Fixtures.makeFile(in: dir.path, name: "escape.yaml", contents: "version: 1\noutput:\n  filename: \"x\u{1B}[2J.mp4\"\n")
        let bidi = try Fixtures.makeFile(in: dir.path, name: "bidi.yaml", contents: "version: 1\noutput:\n  filename: \"clip\u{202E}4pm.mp4\"\n")
        let result = try await DropcutProcess.run(["validate", escape, bidi])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(escape):3:15: the file holds the control character U+001B (ESC)"), "\(result.stderr)")
        #expect(result.stderr.contains("\(bidi):3:13: output.filename holds U+202E RIGHT-TO-LEFT OVERRIDE after 4 character(s)"), "\(result.stderr)")
    }

    /// Issue 17: numbers that used to stop `dropcut validate` with SIGILL (status 128 + 4
    /// here) are reported like any mistake: exit status 1 and `file:line:col: message`.
    @Test func numbersPastTheirBoundsExitOneNotATrap() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        _ = try Fixtures.makeFile(in: dir.path, name: "logo.png", contents: "")   // validate only resolves it
        let cases: [(name: String, yaml: String, message: String)] = [
            ("bitrate.yaml", "version: 1\noutput: { audio: { codec: aac, bitrate: 1e19 } }\n",
             ":2:41: output.audio.bitrate must be between 32k and 512k (got 1e19)"),
            ("colour.yaml", "version: 1\noverlays:\n  - text: hi\n    color: \"#ＦＦＦ\"\n",
             ":4:12: overlay color must be a colour #rgb, #rrggbb or #rrggbbaa; got '#ＦＦＦ'"),
            ("ramp.yaml", "version: 1\nclips:\n  - source: \"{input}\"\n    ramp: [{at: 0, rate: 1}, {at: 1000000000, rate: 2}]\n",
             ":4:35: clips[0].ramp[1].at must be at most 24 hours (86400 s) (got 1000000000)"),
            ("lengths.yaml", "version: 1\noverlays:\n  - { text: hi, size: 5e9px, margin: 1e20 }\n  - { image: logo.png, width: 1e19 }\n",
             ":3:23: overlay size must be between 0 and 32768px or between 0 and 100% (got 5e9px)"),
        ]
        for (name, yaml, message) in cases {
            let recipe = try Fixtures.makeFile(in: dir.path, name: name, contents: yaml)
            let result = try await DropcutProcess.run(["validate", recipe])
            #expect(result.status == 1, "\(name): status \(result.status), stderr: \(result.stderr)")
            #expect(result.stderr.contains(recipe + message), "\(name): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("crashed"), "\(name): \(result.stderr)")
        }
        let lengths = dir.file("lengths.yaml")
        let result = try await DropcutProcess.run(["validate", lengths])
        #expect(result.stderr.contains("\(lengths):3:38: overlay margin must be between 0 and 32768px or between 0 and 100% (got 1e20)"))
        #expect(result.stderr.contains("\(lengths):4:31: overlay width must be between 0 and 32768px or between 0 and 100% (got 1e19)"))
    }
}
