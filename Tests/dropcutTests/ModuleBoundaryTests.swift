import Foundation
import Testing
import TestSupport

/// The C libraries stay inside the module that wraps them: each C module is imported
/// `internal` by its owner only, and no public declaration names a C type, so the rest of
/// dropcut (and any user of the libraries) sees Swift types only. The compiler enforces
/// the second half only while the imports are internal: this test keeps them internal,
/// and still names a leak if someone makes one public again. Also, the daemon library
/// does not reach back into the command-line tool.
@Suite struct ModuleBoundaryTests {
    /// The modules under Sources/ allowed to import each C module.
    static let owners: [String: Set<String>] = [
        "CFFmpeg": ["MediaIO"],
        "CFreeType": ["Render"],
        "RenderKernels": ["Render"],
        "CSystemd": ["Daemon"],
        "CLinux": ["Daemon"],
        "CZlib": ["Recipe"],
    ]

    @Test func cModulesAreImportedInternallyAndOnlyByTheirOwners() throws {
        let files = try Self.sources()
        // A wrong root would find nothing and pass: make sure the owners were seen.
        for (module, modules) in Self.owners {
            #expect(files.contains { modules.contains($0.module) && $0.imports.contains { $0.module == module } },
                    "no file imports \(module)")
        }
        record(files.flatMap(Self.importViolations))
    }

    @Test func publicDeclarationsNameNoCType() throws {
        let files = try Self.sources()
        // A pattern that matched nothing would pass: make sure it sees a known one.
        let heads = files.filter { $0.path == "Sources/MediaIO/VideoFrame.swift" }.flatMap(Self.publicDeclarations).map(\.head)
        #expect(heads.contains("public init(width: Int, height: Int, pixelFormat: PixelFormat = .yuv420p) throws(FFmpegError)"),
                "\(heads)")
        record(files.flatMap(Self.publicCTypeViolations))
    }

    @Test func daemonDoesNotImportTheCommandLineTool() throws {
        record(try Self.sources().flatMap(Self.daemonViolations))
    }

    /// dropcut's own modules, lowest first, and which of them each may import: the
    /// editing model at the bottom, the pipeline between the engine and the front ends.
    static let layers: [String: Set<String>] = [
        "Timeline": [],
        "MediaIO": ["Timeline"],
        "Render": ["Timeline", "MediaIO"],
        "Recipe": ["Timeline"],
        "Pipeline": ["Timeline", "MediaIO", "Render", "Recipe"],
        "Daemon": ["Timeline", "MediaIO", "Render", "Recipe", "Pipeline"],
        "dropcut": ["Timeline", "MediaIO", "Render", "Recipe", "Pipeline", "Daemon"],
    ]

    /// The command-line files that drive the daemon; every other command (render, plan,
    /// probe, validate) goes through the pipeline and never imports the daemon.
    static let daemonCommands: Set<String> = [
        "Sources/dropcut/WatchCommand.swift", "Sources/dropcut/WorkerCommand.swift", "Sources/dropcut/StatusCommand.swift", "Sources/dropcut/DaemonConfigOption.swift",
    ]

    @Test func modulesImportOnlyTheLayersBelowThem() throws {
        let files = try Self.sources()
        #expect(Set(files.map(\.module)).isSuperset(of: Self.layers.keys), "\(Set(files.map(\.module)))")
        record(files.flatMap(Self.layerViolations))
        // The render and daemon paths share the pipeline: both import it.
        #expect(files.contains { $0.path == "Sources/dropcut/RenderCommand.swift" && $0.imports.contains { $0.module == "Pipeline" } })
        #expect(files.contains { $0.path == "Sources/Daemon/Worker/RenderWorker.swift" && $0.imports.contains { $0.module == "Pipeline" } })
    }

    /// The rules on a made-up file: they catch what they are for, and not names in doc
    /// comments, strings or bodies.
    @Test func rulesCatchLeaksButNotCommentsStringsOrBodies() {
        let file = SourceFile(path: "Sources/Render/Leak.swift", module: "Render", text: #"""
            import CFFmpeg
            public import CFreeType
            /// public var frame: AVFrame, in prose only
            public var face: FT_Face { fatalError() }
            public func convert(_ x: Int,
                                to format: AVPixelFormat) {}
            public static let gray = Gray(mode: FT_PIXEL_MODE_GRAY)
            public var isKey: Bool { flags & AV_PKT_FLAG_KEY != 0 }
            public var message: String { "sd_journal_sendv \("failed: \(errno)") {" }
            public let after = 1   // the string above is closed
            fileprivate import CFreeType
            private var frame: AVFrame
            public init(format: String = "AV_PIX_FMT_NONE", size: Size? = nil) where T == AVFrame {}
            """#)
        let violations = Self.importViolations(file) + Self.publicCTypeViolations(file)
        #expect(violations.map(\.line) == [1, 1, 2, 4, 5, 13], "\(violations)")
        #expect(violations.first?.description.hasPrefix("Sources/Render/Leak.swift:1: ") == true)
        #expect(violations.last?.description.contains("AVFrame") == true)

        let render = SourceFile(path: "Sources/dropcut/RenderCommand.swift", module: "dropcut", text: "import Daemon\nimport Pipeline\n")
        #expect(Self.layerViolations(render).map(\.line) == [1])
        let recipe = SourceFile(path: "Sources/Recipe/X.swift", module: "Recipe", text: "import Render\nimport Timeline\n")
        #expect(Self.layerViolations(recipe).map(\.line) == [1])
        let daemon = SourceFile(path: "Sources/Daemon/X.swift", module: "Daemon", text: "@testable import dropcut\n")
        #expect(Self.daemonViolations(daemon).map(\.line) == [1])
    }

    /// One issue per violation, located at the offending line (so an editor shows it there).
    private func record(_ violations: [Violation]) {
        for violation in violations {
            let location = SourceLocation(fileID: violation.path.split(separator: "/").suffix(2).joined(separator: "/"),
                                          filePath: Repository.path(violation.path), line: violation.line, column: 1)
            Issue.record(Comment(rawValue: violation.description), sourceLocation: location)
        }
    }

    // MARK: The rules

    static func importViolations(_ file: SourceFile) -> [Violation] {
        file.imports.flatMap { statement -> [Violation] in
            guard let modules = owners[statement.module] else { return [] }
            var found: [Violation] = []
            if !["internal", "fileprivate", "private"].contains(statement.access ?? "") {
                found.append(Violation(path: file.path, line: statement.line,
                                       message: "import \(statement.module) must be `internal import \(statement.module)`"))
            }
            if !modules.contains(file.module) {
                found.append(Violation(path: file.path, line: statement.line,
                                       message: "\(statement.module) is imported only by \(modules.sorted().joined(separator: ", ")), not \(file.module)"))
            }
            return found
        }
    }

    /// A C type's name: FFmpeg's `AVFrame`, `AVPixelFormat`, `AV_PIX_FMT_…`, swscale's and
    /// swresample's contexts, FreeType's `FT_…`, zlib's `z_stream`, systemd's `sd_…`.
    static var cName: Regex<Substring> { #/\bAV[A-Z][A-Za-z0-9]+\b|\bAV_\w+|\bSw[rs]Context\b|\bFT_\w+|\bz_stream\b|\bsd_\w+/# }

    /// `public` or `open` followed, after other modifiers, by what it declares.
    static var publicDeclaration: Regex<Substring> {
        #/(?:^|[\s(])(?:public|open)(?:\(set\))?\s+(?:(?:@\w+|[a-z]+(?:\([a-z]+\))?)\s+)*?(?:func|var|let|init|subscript|class|struct|enum|protocol|typealias|actor|extension|case|macro|associatedtype)\b/#
    }

    /// The public and open declarations' heads (`SwiftCode.declarationHead`) and their lines.
    static func publicDeclarations(_ file: SourceFile) -> [(line: Int, head: String)] {
        // Regexes are not Sendable, so not shared in static lets: one per file.
        let pattern = publicDeclaration
        return file.code.lines.enumerated().compactMap { index, line in
            guard line.contains("public") || line.contains("open"),
                  let declaration = line.firstMatch(of: pattern) else { return nil }
            let head = file.code.declarationHead(line: index, column: declaration.range.lowerBound)
            return (index + 1, head.trimmingCharacters(in: .whitespaces))
        }
    }

    static func publicCTypeViolations(_ file: SourceFile) -> [Violation] {
        let pattern = cName
        return publicDeclarations(file).compactMap { line, head in
            guard let name = head.firstMatch(of: pattern) else { return nil }
            return Violation(path: file.path, line: line,
                             message: "public declaration names the C type \(name.output): \(head)")
        }
    }

    static func daemonViolations(_ file: SourceFile) -> [Violation] {
        guard file.module == "Daemon" else { return [] }
        return file.imports.filter { $0.module == "dropcut" }.map {
            Violation(path: file.path, line: $0.line, message: "Daemon must not import dropcut (the command-line tool)")
        }
    }

    static func layerViolations(_ file: SourceFile) -> [Violation] {
        guard let allowed = layers[file.module] else { return [] }
        return file.imports.compactMap { imported in
            if layers[imported.module] != nil, imported.module != file.module, !allowed.contains(imported.module) {
                return Violation(path: file.path, line: imported.line, message: "\(file.module) must not import \(imported.module)")
            }
            if imported.module == "Daemon", file.module == "dropcut", !daemonCommands.contains(file.path) {
                return Violation(path: file.path, line: imported.line,
                                 message: "only the daemon's commands import Daemon; render and plan go through Pipeline")
            }
            return nil
        }
    }

    // MARK: The sources

    /// Every .swift file under Sources/, its module being the folder it is in.
    static func sources() throws -> [SourceFile] {
        let root = Repository.path("Sources")
        guard let walk = FileManager.default.enumerator(atPath: root) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: root])
        }
        var files: [SourceFile] = []
        while let relative = walk.nextObject() as? String {
            guard relative.hasSuffix(".swift"), let module = relative.split(separator: "/").first else { continue }
            let text = try String(contentsOfFile: (root as NSString).appendingPathComponent(relative), encoding: .utf8)
            files.append(SourceFile(path: "Sources/" + relative, module: String(module), text: text))
        }
        #expect(files.count > 50, "only \(files.count) files under \(root)")
        return files.sorted { $0.path < $1.path }
    }
}

/// One rule broken at `path:line`.
struct Violation: CustomStringConvertible {
    let path: String
    let line: Int
    let message: String
    var description: String { "\(path):\(line): \(message)" }
}

/// A Swift file of Sources/ and its import statements.
struct SourceFile {
    struct Import {
        let line: Int
        /// `internal`, `private`..., nil when the import has no access level.
        let access: String?
        let module: String
    }

    let path: String
    let module: String
    let code: SwiftCode
    let imports: [Import]

    /// Attributes (`@testable`, `@_exported`...), an access level, an import kind, the module.
    static var importStatement: Regex<(Substring, access: Substring?, module: Substring)> {
        #/^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?<access>public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(?<module>\w+)/#
    }

    init(path: String, module: String, text: String) {
        self.path = path
        self.module = module
        code = SwiftCode(text)
        let pattern = Self.importStatement
        imports = code.lines.enumerated().compactMap { index, line in
            guard line.contains("import"), let match = line.firstMatch(of: pattern) else { return nil }
            return Import(line: index + 1, access: match.output.access.map(String.init), module: String(match.output.module))
        }
    }
}
