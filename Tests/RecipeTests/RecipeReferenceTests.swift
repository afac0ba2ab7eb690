import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport

/// The key table in `RecipeKeys.swift`: the decoder's only source of accepted keys, every
/// row's example valid, and the reference in docs/recipes.md exactly the Markdown made from it.
@Suite struct RecipeReferenceTests {
    static let begin = "<!-- recipe-reference:begin -->\n"
    static let end = "<!-- recipe-reference:end -->"

    /// docs/recipes.md holds `RecipeReference.markdown()` between the markers. With
    /// `DROPCUT_UPDATE_DOCS=1` (what `scripts/docs` sets) it rewrites that part instead.
    @Test func recipesDocHoldsTheGeneratedReference() throws {
        let path = Repository.path("docs/recipes.md")
        let document = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(document.range(of: Self.begin), "docs/recipes.md has no \(Self.begin)")
        let stop = try #require(document.range(of: Self.end, range: start.upperBound..<document.endIndex), "docs/recipes.md has no \(Self.end)")
        let current = String(document[start.upperBound..<stop.lowerBound])
        let generated = RecipeReference.markdown()
        if ProcessInfo.processInfo.environment["DROPCUT_UPDATE_DOCS"] == "1" {
            if current != generated {
                try Data((document[..<start.upperBound] + generated + document[stop.lowerBound...]).utf8)
                    .write(to: URL(fileURLWithPath: path))
            }
            return
        }
        #expect(current == generated, "docs/recipes.md's recipe reference is out of date: run scripts/docs")
    }

    @Test func everyKeyIsDocumentedOnceWithItsParent() {
        let paths = RecipeReference.keys.map(\.path)
        #expect(Set(paths).count == paths.count, "a key listed twice")
        for key in RecipeReference.keys {
            #expect(!key.type.isEmpty && !key.defaultValue.isEmpty && !key.example.isEmpty && !key.summary.isEmpty, "\(key.path)")
            // `clips[].speed[].rate` needs a `clips[].speed` row, which needs a `clips` row.
            if !key.section.isEmpty {
                let parent = key.section.hasSuffix("[]") ? String(key.section.dropLast(2)) : key.section
                #expect(paths.contains(parent), "\(key.path): no row for \(parent)")
            }
            #expect(RecipeReference.markdown().contains("| `\(key.path)` |"), "\(key.path) in the Markdown")
        }
    }

    /// Each row's example, written where its path says (with the keys its mappings
    /// require), is accepted: nothing is reported at or after the example's position.
    @Test(arguments: RecipeReference.keys.map(\.path))
    func exampleValidates(path: String) throws {
        let key = try #require(RecipeReference.keys.first { $0.path == path })
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // The image sequence the `frames` example names.
        for n in 0..<3 {
            try FileManager.default.copyItem(atPath: (shippedAssetsDirectory as NSString).appendingPathComponent("logo.png"),
                                             toPath: dir.file(String(format: "spin_%02d.png", n)))
        }
        let (yaml, line, column) = Self.recipe(placing: key, value: key.example)
        let diagnostics: [RecipeDiagnostic]
        do {
            _ = try RecipeLoader(resolver: AssetResolver(assetDirectories: [shippedAssetsDirectory]))
                .load([dir.write("example.yaml", yaml)])
            diagnostics = []
        } catch {
            diagnostics = error.diagnostics
        }
        // Others (an overlay with only `width` has no content) are about what is left out.
        let aboutTheExample = diagnostics.filter {
            ($0.location.line == line && $0.location.column >= column) || $0.message.contains("unknown key")
        }
        #expect(aboutTheExample.isEmpty, "\(yaml)\n\(aboutTheExample.map(\.description).joined(separator: "\n"))")
    }

    /// Each mapping refuses a key it does not know, listing exactly the table's keys for it:
    /// the decoder reads every section's keys from the table, under the table's names.
    @Test(arguments: Set(RecipeReference.keys.map(\.section)).sorted())
    func unknownKeysListTheTablesKeys(section: String) throws {
        let stranger = RecipeKey(section.isEmpty ? "zzzzzzzz" : section + ".zzzzzzzz", "", default: "", example: "1", "")
        let (yaml, line, column) = Self.recipe(placing: stranger, value: "1")
        guard case let .failure(problems) = loadRecipe(yaml) else {
            Issue.record("accepted an unknown key:\n\(yaml)")
            return
        }
        let expected = "expected one of: \(RecipeReference.allowedKeys(in: section).joined(separator: ", "))"
        let reported = problems.lines.filter { $0.hasPrefix("\(line):\(column - 10):") && $0.contains("unknown key 'zzzzzzzz'") }
        #expect(reported.count == 1 && reported.allSatisfy { $0.hasSuffix(expected) }, "\(yaml)\n\(problems.lines)")
    }

    // MARK: A recipe around one key

    /// A YAML tree: a value, a mapping, or a list of one mapping.
    indirect enum Node {
        case value(String, isExample: Bool)
        case mapping([(String, Node)])
        case list([(String, Node)])
    }

    /// A block-style recipe with `value` at `key.path`, plus every key marked `required`
    /// in the mappings along the way (music needs its source, a speed range its rate...),
    /// and where `value` starts (1-based line and column).
    static func recipe(placing key: RecipeKey, value: String) -> (yaml: String, line: Int, column: Int) {
        var top: [(String, Node)] = []
        insert(key.path.split(separator: ".").map(String.init)[...], .value(value, isExample: true), into: &top)
        var section = key.section
        while true {
            for sibling in RecipeReference.keys where sibling.section == section && sibling.defaultValue == "required" && sibling.path != key.path {
                insert(sibling.path.split(separator: ".").map(String.init)[...], .value(sibling.example, isExample: false), into: &top)
            }
            if section.isEmpty { break }
            let parent = section.hasSuffix("[]") ? String(section.dropLast(2)) : section
            section = parent.lastIndex(of: ".").map { String(parent[..<$0]) } ?? ""
        }
        var lines: [String] = []
        var position = (line: 0, column: 0)
        emit(top, indent: 0, dash: false, into: &lines, position: &position)
        return (lines.joined(separator: "\n") + "\n", position.line, position.column)
    }

    private static func insert(_ components: ArraySlice<String>, _ value: Node, into entries: inout [(String, Node)]) {
        guard let first = components.first else { return }
        let isList = first.hasSuffix("[]")
        let name = isList ? String(first.dropLast(2)) : first
        let index = entries.firstIndex { $0.0 == name }
        if components.count == 1 {
            if index == nil { entries.append((name, value)) }
            return
        }
        var children: [(String, Node)] = []
        if let index {
            switch entries[index].1 {
            case let .mapping(existing), let .list(existing): children = existing
            case .value: return
            }
        }
        insert(components.dropFirst(), value, into: &children)
        let node: Node = isList ? .list(children) : .mapping(children)
        if let index { entries[index].1 = node } else { entries.append((name, node)) }
    }

    private static func emit(_ entries: [(String, Node)], indent: Int, dash: Bool, into lines: inout [String],
                             position: inout (line: Int, column: Int)) {
        let keyColumn = indent + (dash ? 2 : 0)
        for (i, (name, node)) in entries.enumerated() {
            let lead = i == 0 && dash ? String(repeating: " ", count: indent) + "- " : String(repeating: " ", count: keyColumn)
            switch node {
            case let .value(text, isExample):
                lines.append("\(lead)\(name): \(text)")
                if isExample { position = (lines.count, keyColumn + name.count + 3) }
            case let .mapping(children):
                lines.append("\(lead)\(name):")
                emit(children, indent: keyColumn + 2, dash: false, into: &lines, position: &position)
            case let .list(children):
                lines.append("\(lead)\(name):")
                emit(children, indent: keyColumn + 2, dash: true, into: &lines, position: &position)
            }
        }
    }
}
