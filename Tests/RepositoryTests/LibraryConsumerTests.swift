import Foundation
import Testing
import TestSupport

/// dropcut as a library others depend on by version (issue 47): a package of its own
/// that names dropcut in its manifest with `.package(url:from:)` — a tag of this
/// repository, read over `file://` — builds, and renders a clip with the README's "As a
/// library" code, word for word. SwiftPM refuses a versioned dependency whose targets
/// carry unsafe flags (before tools 6.2) and a graph where two packages' modules share a
/// name, so this is what a user meets, not what this repository's own build meets.
///
/// The snapshot is the repository's committed HEAD (a clone): what CI tests is what a tag
/// of it would give.
@Suite(.tags(.slow)) struct LibraryConsumerTests {
    @Test func aPackageDependsOnDropcutByVersionAndRendersTheReadmeExample() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-consumer")
        defer { withExtendedLifetime(dir) {} }

        // dropcut at a tag: the release DropcutVersion says, as a release is tagged (moved
        // to this commit when the clone has it already on an earlier one).
        let source = dir.file("dropcut")
        try await Command.runChecked("git", ["clone", "--quiet", "--no-local", Repository.root, source])
        let versionFile = try String(contentsOfFile: Repository.path("Sources/Pipeline/DropcutVersion.swift"), encoding: .utf8)
        let version = try #require(versionFile.firstMatch(of: #/release = "(?<v>[0-9]+\.[0-9]+\.[0-9]+)"/#)?.output.v)
        try await Command.runChecked("git", ["-C", source, "-c", "user.name=test", "-c", "user.email=test@localhost",
                                             "tag", "--force", "-a", String(version), "-m", "dropcut \(version)"])

        // The consumer: the README's example as its main.swift.
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let example = try #require(Self.example(in: readme), "README.md has no \"One render\" example")
        #expect(example.contains("import DropcutPipeline"), "\(example)")
        let consumer = dir.file("consumer")
        try FileManager.default.createDirectory(atPath: consumer + "/Sources/consumer", withIntermediateDirectories: true)
        try """
            // swift-tools-version:6.2
            import PackageDescription

            let package = Package(
                name: "consumer",
                dependencies: [
                    .package(url: "file://\(source)", from: "\(version)"),
                    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
                ],
                targets: [
                    .executableTarget(name: "consumer", dependencies: [
                        .product(name: "DropcutPipeline", package: "dropcut"),
                        .product(name: "DropcutRecipe", package: "dropcut"),
                        .product(name: "Logging", package: "swift-log"),
                    ]),
                ]
            )

            """.write(toFile: consumer + "/Package.swift", atomically: true, encoding: .utf8)
        try example.write(toFile: consumer + "/Sources/consumer/main.swift", atomically: true, encoding: .utf8)

        // Built as a user builds it: no development flag (scripts/test sets one for this
        // repository's own build).
        let environment = ["DROPCUT_DEVELOPMENT": ""]
        let build = try await Command.run("swift", ["build", "--product", "consumer"], environment: environment, directory: consumer)
        #expect(build.status == 0, "swift build of a package depending on dropcut \(version):\n\(build.stdout.suffix(3000))\n\(build.stderr.suffix(3000))")
        guard build.status == 0 else { return }
        #expect(!build.stderr.contains("unsafe build flags"), "\(build.stderr)")
        let bin = try await Command.run("swift", ["build", "--show-bin-path"], environment: environment, directory: consumer)
        let executable = bin.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/consumer"

        // Run where the example looks: recipes/ (with its assets), clip.mov, out/.
        let work = dir.file("work")
        try FileManager.default.createDirectory(atPath: work + "/out", withIntermediateDirectories: true)
        try await Command.runChecked("cp", ["-R", Repository.path("recipes"), work + "/recipes"])
        // Long enough for the recipe's music fades (1 s in, 2 s out).
        _ = try await Fixtures.makeClip(in: work, name: "clip.mov", seconds: 4)
        let run = try await Command.run(executable, [], directory: work)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let output = work + "/out/clip.social.mp4"
        let facts = try FFprobe.streams(of: output)
        #expect(facts.contains { $0.codecType == "video" && $0.width == 1080 && $0.height == 1920 }, "\(facts)")
        #expect(facts.contains { $0.codecType == "audio" }, "\(facts)")
    }

    /// The Swift code block that follows "One render" in the README.
    static func example(in readme: String) -> String? {
        guard let heading = readme.range(of: "One render"),
              let open = readme.range(of: "```swift\n", range: heading.upperBound..<readme.endIndex),
              let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex) else { return nil }
        return String(readme[open.upperBound..<close.lowerBound]) + "\n"
    }
}
