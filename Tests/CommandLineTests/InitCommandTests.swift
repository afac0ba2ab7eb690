import Foundation
import Testing
import TestSupport

/// `dropcut init [DIR]`: a commented daemon config and recipe that validate as written
/// (`dropcut validate`, `dropcut watch --check`), the next commands said, nothing that
/// exists replaced without `--force`; and `--print-config`, the config a package installs,
/// which loads once its folders exist.
@Suite(.tags(.slow)) struct InitCommandTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory(prefix: "dropcut-init") }

    private static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func itWritesAConfigAndARecipeThatValidate() async throws {
        let target = dir.file("start")
        let result = try await DropcutProcess.run(["init", target])

        try #require(result.status == 0, "\(result.stderr)")
        let config = target + "/dropcut.yaml", recipe = target + "/recipe.yaml"
        #expect(try Self.read(config).hasPrefix("# dropcut's configuration"))
        #expect(try Self.read(recipe).hasPrefix("# A dropcut recipe"))
        #expect(result.stdout.contains("dropcut watch --config \(target)/dropcut.yaml"), "\(result.stdout)")
        #expect(result.stdout.contains("dropcut render --recipe \(target)/recipe.yaml"), "\(result.stdout)")

        let validated = try await DropcutProcess.run(["validate", recipe])
        #expect(validated.status == 0 && validated.stdout == "\(recipe): ok\n", "\(validated)")
        let checked = try await DropcutProcess.run(["watch", "--config", config, "--check"])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("1 folder(s)") && checked.stdout.contains("(recipe: \(recipe))"), "\(checked.stdout)")
        // The next steps run as printed, where init ran (here by its path in the build
        // tree, which is on no PATH).
        let step = try #require(result.stdout.split(separator: "\n").first { $0.contains("--check") }
            .map { String($0.split(separator: "#")[0]).trimmingCharacters(in: .whitespaces) })
        #expect(step.hasPrefix(try BuildProducts.executable(named: "dropcut")), "\(step)")
        let ran = try await Command.run("/bin/sh", ["-c", step])
        #expect(ran.status == 0 && ran.stdout.contains("1 folder(s)"), "\(step): \(ran.stderr)")
    }

    @Test func theRecipeRendersAClip() async throws {
        let result = try await DropcutProcess.run(["init", dir.path])
        try #require(result.status == 0, "\(result.stderr)")
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let render = try await DropcutProcess.run(["render", "-q", "--recipe", dir.file("recipe.yaml"), clip])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try FFprobe.decodedVideoFrames(of: dir.file("clip.dropcut.mp4")) == 30)
    }

    @Test func itLeavesFilesThatExistUnlessForced() async throws {
        let recipe = try Fixtures.makeFile(in: dir.path, name: "recipe.yaml", contents: "version: 1\n# mine\n")

        let refused = try await DropcutProcess.run(["init", dir.path])

        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(recipe) exists; left as it is (--force replaces it)"), "\(refused.stderr)")
        #expect(try Self.read(recipe) == "version: 1\n# mine\n")
        #expect(!FileManager.default.fileExists(atPath: dir.file("dropcut.yaml")), "nothing written")

        let forced = try await DropcutProcess.run(["init", "--force", dir.path])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try Self.read(recipe).hasPrefix("# A dropcut recipe"))
    }

    @Test func thePrintedConfigLoadsOnceItsFoldersExist() async throws {
        let printed = try await DropcutProcess.run(["init", "--print-config"])
        try #require(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout.contains("state_dir: /var/lib/dropcut"))
        #expect(printed.stdout.contains("inbox: /srv/dropcut/phone/inbox"))
        // The same text with its two roots moved here, and the inbox made, as an install does.
        let moved = printed.stdout.replacingOccurrences(of: "/srv/dropcut", with: dir.file("srv"))
            .replacingOccurrences(of: "/var/lib/dropcut", with: dir.file("state"))
        let config = try Fixtures.makeFile(in: dir.path, name: "dropcut.yaml", contents: moved)
        try FileManager.default.createDirectory(atPath: dir.file("srv/phone/inbox"), withIntermediateDirectories: true)
        let checked = try await DropcutProcess.run(["watch", "--config", config, "--check"])
        #expect(checked.status == 0, "\(checked.stderr)")
        // Hidden from help: a packaging script's switch.
        let help = try await DropcutProcess.run(["init", "--help"])
        #expect(!help.stdout.contains("print-config"))
    }
}
