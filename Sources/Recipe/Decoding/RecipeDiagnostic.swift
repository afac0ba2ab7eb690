/// Where something is in a recipe file: 1-based line and column, as editors count them.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// The file as a whole, no line in it: what cannot be read, or is missing.
    package static func wholeFile(_ file: String) -> SourceLocation { SourceLocation(file: file, line: 0, column: 0) }

    /// `social.yaml:14:11`; `social.yaml` alone for the whole file (line 0).
    public var description: String { line > 0 ? "\(file):\(line):\(column)" : file }
}

/// One problem in a recipe, at a place in a file.
public struct RecipeDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public init(_ message: String, at location: SourceLocation) {
        self.location = location
        self.message = message
    }

    /// `social.yaml:14:11: speed rate must be > 0 (got -2)`
    public var description: String { "\(location): \(message)" }
}

/// A recipe that was rejected, with every problem found in one pass, in file order.
public struct RecipeError: Error, Sendable, Hashable, CustomStringConvertible {
    public var diagnostics: [RecipeDiagnostic]

    public init(_ diagnostics: [RecipeDiagnostic]) {
        self.diagnostics = diagnostics
    }

    public init(_ message: String, at location: SourceLocation) {
        self.init([RecipeDiagnostic(message, at: location)])
    }

    /// One diagnostic per line.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
