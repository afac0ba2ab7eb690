import Foundation
import Testing
import TestSupport

/// The public API of the library products Timeline, Recipe and MediaIO (docs/library.md)
/// is what a library user needs; what only dropcut's own modules (Render, Pipeline, the
/// daemon, the tool, the tests) use is `package`. Every public type says what it is in a
/// `///` comment, and each module's public declarations are bounded, so that a new one is
/// a decision made here and not an accident.
@Suite struct PublicAPITests {
    /// Each module's public declarations at most (`ModuleBoundaryTests.publicDeclarations`).
    /// Before `package` access (issue 47), Timeline had 668, Recipe 414 and MediaIO 264;
    /// after it, Timeline 557, Recipe 274, MediaIO 16 (MediaIO: `AssetProbe` and
    /// `FFmpegError`, what a library user meets). Timeline 571 since issue 49: a smart
    /// render's pieces (`SmartRenderPlan`, read in `PassThrough`'s decision) and where a
    /// source's pictures lie (`SourcePictureIndex`, handed to `Production`).
    static let bounds: [String: Int] = ["DropcutTimeline": 571, "DropcutRecipe": 274, "DropcutMediaIO": 16]

    /// A public declaration of each module that must be counted: a counter that found
    /// nothing would pass the bound.
    static let known: [String: String] = [
        "DropcutTimeline": "public struct Composition",
        "DropcutRecipe": "public struct RecipeLoader",
        "DropcutMediaIO": "public struct AssetProbe: MediaProbing",
    ]

    @Test(arguments: bounds.keys.sorted())
    func publicDeclarationsAreBounded(module: String) throws {
        let files = try ModuleBoundaryTests.sources().filter { $0.module == module }
        let declarations = files.flatMap { file in
            ModuleBoundaryTests.publicDeclarations(file).map { "\(file.path):\($0.line): \($0.head)" }
        }
        let bound = try #require(Self.bounds[module])
        let known = try #require(Self.known[module])
        #expect(declarations.contains { $0.contains(": \(known)") }, "\(module): \(known) not among \(declarations)")
        #expect(declarations.count <= bound,
                "\(module) declares \(declarations.count) public symbols, more than \(bound): make what only dropcut uses `package`, or raise the bound on purpose:\n\(declarations.joined(separator: "\n"))")
    }

    @Test(arguments: bounds.keys.sorted())
    func everyPublicTypeHasADocComment(module: String) throws {
        let files = try ModuleBoundaryTests.sources().filter { $0.module == module }
        var types: [String] = []
        for file in files {
            let text = try String(contentsOfFile: Repository.path(file.path), encoding: .utf8)
            let found = Self.publicTypes(text)
            types += found.map(\.name)
            for type in found where !type.documented {
                let location = SourceLocation(fileID: file.path.split(separator: "/").suffix(2).joined(separator: "/"),
                                              filePath: Repository.path(file.path), line: type.line, column: 1)
                Issue.record("\(file.path):\(type.line): public type \(type.name) has no /// comment", sourceLocation: location)
            }
        }
        // A pattern that found no type would pass: the known ones are seen.
        let known = try #require(Self.known[module]?.split(separator: " ").dropFirst(2).first.map { String($0.prefix { $0 != ":" }) })
        #expect(types.contains(known), "\(module): \(known) not among \(types)")
    }

    /// The rule on a made-up file: an attribute may stand between the comment and the
    /// type, a `//` comment or a `///` in a string is no documentation, nested types count.
    @Test func docCommentRuleSeesAttributesNestingAndStrings() {
        let text = #"""
            /// Documented.
            public struct A {
                /// Documented too.
                public enum B { case b }
                public struct C {}
            }
            // Not a doc comment.
            public final class D {}
            /// Documented, with an attribute between.
            @available(*, deprecated)
            public protocol E {}
            let s = """
            /// in a string
            """
            public indirect enum F {}
            struct Internal {}
            package struct G {}
            """#
        let found = Self.publicTypes(text)
        #expect(found.map(\.name) == ["A", "B", "C", "D", "E", "F"], "\(found)")
        #expect(found.filter { !$0.documented }.map(\.line) == [5, 8, 15], "\(found)")
    }

    /// The public types (struct, class, enum, protocol, actor) declared in `text`, each
    /// with its line and whether a `///` comment precedes it (attributes may stand between).
    static func publicTypes(_ text: String) -> [(name: String, line: Int, documented: Bool)] {
        let raw = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let code = SwiftCode(text).lines
        let pattern = #/^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:final|indirect)\s+)*(?:struct|class|enum|protocol|actor)\s+(?<name>\w+)/#
        return code.enumerated().compactMap { index, line in
            guard line.contains("public") || line.contains("open"), let match = line.firstMatch(of: pattern) else { return nil }
            var above = index - 1
            while above >= 0, raw[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
            let documented = above >= 0 && raw[above].trimmingCharacters(in: .whitespaces).hasPrefix("///")
            return (String(match.output.name), index + 1, documented)
        }
    }
}
