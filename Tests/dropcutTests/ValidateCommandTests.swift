import Testing
import TestSupport

/// `dropcut validate` as a user runs it: exit status and `file:line:col: message` output.
@Suite struct ValidateCommandTests {
    @Test func validRecipeIsReportedOK() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let recipe = try Fixtures.makeFile(in: dir.path, name: "ok.yaml", contents: "version: 1\n")

        let result = try DropcutProcess.run(["validate", recipe])

        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "\(recipe): ok\n")
    }

    @Test func problemsArePrintedWithFileLineAndColumn() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let good = try Fixtures.makeFile(in: dir.path, name: "good.yaml", contents: "version: 1\n")
        let typo = try Fixtures.makeFile(in: dir.path, name: "typo.yaml", contents: "version: 1\noutptu:\n  fps: 30\n")
        let missing = dir.file("missing.yaml")

        let result = try DropcutProcess.run(["validate", good, typo, missing])

        #expect(result.status == 1)
        #expect(result.stdout == "\(good): ok\n")  // every file is checked, good ones still reported
        #expect(result.stderr.contains("\(typo):2:1: unknown key 'outptu'"))
        #expect(result.stderr.contains("\(missing):1:1:"))
    }
}
