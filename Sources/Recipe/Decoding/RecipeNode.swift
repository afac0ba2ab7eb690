import Yams

/// A YAML document as a tree whose every node knows the file, line and column it came
/// from, so that errors found after merging several recipe files still point at the right
/// file. Scalars keep whether they were plain (unquoted): `1.5` is a number, `"1.5"` is text.
package indirect enum RecipeNode: Sendable, Hashable {
    case scalar(String, plain: Bool, at: SourceLocation)
    case mapping([Entry], at: SourceLocation)
    case sequence([RecipeNode], at: SourceLocation)

    /// One `key: value` pair of a mapping.
    package struct Entry: Sendable, Hashable {
        package var key: String
        package var keyLocation: SourceLocation
        package var value: RecipeNode
    }

    package var location: SourceLocation {
        switch self {
        case let .scalar(_, _, at), let .mapping(_, at), let .sequence(_, at): return at
        }
    }

    /// True for `~`, `null` and an empty plain scalar.
    package var isNull: Bool {
        if case let .scalar(text, plain, _) = self { return plain && ["", "~", "null", "Null", "NULL"].contains(text) }
        return false
    }

    /// A short name of the node's kind for messages: "a mapping", "a list", "text".
    var kindName: String {
        switch self {
        case .scalar: return "a value"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }

    /// Parses `yaml` read from `file`. Syntax errors, duplicate keys, anchors/aliases and
    /// non-string keys are reported with their positions. `document` is what the file is
    /// to its reader ("recipe", "config"), for the message when it holds nothing.
    package static func parse(yaml: String, file: String, document: String = "recipe") throws(RecipeError) -> RecipeNode {
        let root: Node?
        // The parser stays alive while the tree is converted: nodes only hold their
        // anchors weakly, and an anchor is how an aliased node is recognised.
        let parser: Parser
        do {
            parser = try Parser(yaml: yaml)
            root = try parser.singleRoot()
        } catch let error as YamlError {
            throw RecipeError(yamlMessage(error), at: yamlLocation(error, file: file))
        } catch {
            throw RecipeError("cannot read YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
        guard let root else {
            throw RecipeError("the \(document) is empty", at: SourceLocation(file: file, line: 1, column: 1))
        }
        var diagnostics: [RecipeDiagnostic] = []
        let node = withExtendedLifetime(parser) { convert(root, file: file, diagnostics: &diagnostics) }
        if !diagnostics.isEmpty { throw RecipeError(diagnostics) }
        return node
    }

    private static func location(_ mark: Mark?, file: String) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    private static func convert(_ node: Node, file: String, diagnostics: inout [RecipeDiagnostic]) -> RecipeNode {
        let at = location(node.mark, file: file)
        // Yams resolves an alias to the very node its anchor names, so a few lines of
        // nested aliases ("billion laughs") would expand exponentially here. Anchored
        // nodes are refused, and never descended into.
        if let anchor = node.anchor {
            diagnostics.append(RecipeDiagnostic("YAML anchors and aliases (&\(anchor.rawValue), *\(anchor.rawValue)) are not supported; write the value out", at: at))
            return .scalar("", plain: true, at: at)
        }
        switch node {
        case let .scalar(scalar):
            return .scalar(scalar.string, plain: scalar.style == .plain, at: at)
        case let .sequence(sequence):
            return .sequence(sequence.map { convert($0, file: file, diagnostics: &diagnostics) }, at: at)
        case let .mapping(mapping):
            // Duplicate keys never get here: libyaml's composer rejects them.
            var entries: [Entry] = []
            for (key, value) in mapping {
                let keyAt = location(key.mark, file: file)
                guard case let .scalar(keyScalar) = key else {
                    diagnostics.append(RecipeDiagnostic("keys must be plain words", at: keyAt))
                    continue
                }
                entries.append(Entry(key: keyScalar.string, keyLocation: keyAt, value: convert(value, file: file, diagnostics: &diagnostics)))
            }
            return .mapping(entries, at: at)
        case .alias:
            diagnostics.append(RecipeDiagnostic("YAML aliases (*name) are not supported in recipes; write the value out", at: at))
            return .scalar("", plain: true, at: at)
        }
    }

    private static func yamlLocation(_ error: YamlError, file: String) -> SourceLocation {
        switch error {
        case let .scanner(_, _, mark, _), let .parser(_, _, mark, _), let .composer(_, _, mark, _):
            return location(mark, file: file)
        case let .duplicatedKeysInMapping(_, context):
            return location(context.mark, file: file)
        case let .reader(_, offset?, _, yaml):
            return readerLocation(characterOffset: offset, in: yaml, file: file)
        default:
            return SourceLocation(file: file, line: 1, column: 1)
        }
    }

    /// Where libyaml's reader stopped, as line and column: Yams gives the offset in
    /// characters from the start, and a column is counted in Unicode scalars (as a
    /// `Mark`'s is), both from 1.
    static func readerLocation(characterOffset: Int, in yaml: String, file: String) -> SourceLocation {
        guard let end = yaml.index(yaml.startIndex, offsetBy: characterOffset, limitedBy: yaml.endIndex) else {
            return SourceLocation(file: file, line: 1, column: 1)
        }
        var line = 1, column = 1, afterCarriageReturn = false
        for scalar in yaml[..<end].unicodeScalars {
            switch scalar {
            case "\n":
                // A CR LF pair is one break, counted at its CR.
                if !afterCarriageReturn { line += 1 }
                column = 1
            case "\r":
                line += 1
                column = 1
            default:
                column += 1
            }
            afterCarriageReturn = scalar == "\r"
        }
        return SourceLocation(file: file, line: line, column: column)
    }

    private static func yamlMessage(_ error: YamlError) -> String {
        switch error {
        case let .scanner(context, problem, _, _), let .parser(context, problem, _, _), let .composer(context, problem, _, _):
            return "YAML syntax: \(problem)" + (context.map { " \($0.text)" } ?? "")
        case let .duplicatedKeysInMapping(duplicates, _):
            return "duplicate key '\(duplicates.joined(separator: "', '"))' in this mapping (each key may appear once)"
        case let .reader(problem, _, value, _) where problem.contains("control characters"):
            // A raw NUL or ESC in a value: named, so it can be found in an editor that
            // hides it.
            let named = Unicode.Scalar(UInt32(max(0, value))).map { " \(FilenameTemplate.describe($0))" } ?? ""
            return "the file holds the control character\(named), which YAML does not allow (only tab, line feed and carriage return); remove it"
        case let .reader(problem, _, _, _):
            return "cannot read the file as UTF-8 text: \(problem)"
        default:
            return "YAML error: \(error)"
        }
    }

    /// This node with `override`'s keys laid over it, key by key: mappings merge
    /// recursively; scalars and lists in `override` replace what was here. This is how
    /// an inbox `recipe.yaml` and a clip's sidecar refine a folder's default recipe.
    package func merged(with override: RecipeNode) -> RecipeNode {
        guard case let .mapping(base, at) = self, case let .mapping(top, _) = override else { return override }
        var entries = base
        for entry in top {
            if let i = entries.firstIndex(where: { $0.key == entry.key }) {
                entries[i] = Entry(key: entry.key, keyLocation: entry.keyLocation, value: entries[i].value.merged(with: entry.value))
            } else {
                entries.append(entry)
            }
        }
        return .mapping(entries, at: at)
    }
}
