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
        "CDropcutFFmpeg": ["DropcutMediaIO"],
        "CDropcutFreeType": ["DropcutRender"],
        "CDropcutHarfBuzz": ["DropcutRender"],
        "CDropcutFriBidi": ["DropcutRender"],
        "CDropcutLineBreaking": ["DropcutRender"],
        "CDropcutFontconfig": ["DropcutRender"],
        "CDropcutRenderKernels": ["DropcutRender"],
        "CDropcutSystemd": ["DropcutDaemon"],
        "CDropcutLinux": ["DropcutDaemon", "DropcutPipeline"],
        "CDropcutCurl": ["DropcutDaemon"],
        "CDropcutLibpq": ["DropcutDaemon"],
        "CDropcutCrypto": ["DropcutDigest"],
        "CDropcutZlib": ["DropcutRecipe"],
        "CDropcutVision": ["DropcutReframe"],
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

    /// Public and `package` declarations alike: a `package` one is seen by every other
    /// module of dropcut, and made public again it would be a library user's.
    @Test func publicDeclarationsNameNoCType() throws {
        let files = try Self.sources()
        // A pattern that matched nothing would pass: make sure it sees a known one.
        let heads = files.filter { $0.path == "Sources/MediaIO/Frames/VideoFrame.swift" }.flatMap(Self.exposedDeclarations).map(\.head)
        #expect(heads.contains("package init(width: Int, height: Int, pixelFormat: PixelFormat = .yuv420p) throws(FFmpegError)"),
                "\(heads)")
        record(files.flatMap(Self.publicCTypeViolations))
    }

    @Test func daemonDoesNotImportTheCommandLineTool() throws {
        record(try Self.sources().flatMap(Self.daemonViolations))
    }

    /// dropcut's own modules, lowest first, and which of them each may import: the
    /// low-level support at the bottom, then the editing model, the engine (MediaIO,
    /// Render) and the recipe, the pipeline between the engine and the front ends. The
    /// daemon reaches the engine only through the pipeline: it may not import MediaIO or
    /// Render.
    static let layers: [String: Set<String>] = [
        "DropcutSupport": [],
        "DropcutDigest": ["DropcutSupport"],
        "DropcutTimeline": ["DropcutSupport"],
        "DropcutMediaIO": ["DropcutSupport", "DropcutTimeline"],
        "DropcutRender": ["DropcutSupport", "DropcutTimeline", "DropcutMediaIO"],
        // `fit: smart`'s analysis: decoding (MediaIO) and OpenCV (CVision, C++), beside Render.
        "DropcutReframe": ["DropcutSupport", "DropcutTimeline", "DropcutMediaIO"],
        // Subtitle files read into the editing model's cues: pure, beside the model.
        "DropcutSubtitles": ["DropcutTimeline"],
        "DropcutRecipe": ["DropcutSupport", "DropcutTimeline", "DropcutSubtitles"],
        "DropcutPipeline": ["DropcutSupport", "DropcutDigest", "DropcutTimeline", "DropcutSubtitles", "DropcutMediaIO", "DropcutRender", "DropcutReframe", "DropcutRecipe"],
        "DropcutDaemon": ["DropcutSupport", "DropcutDigest", "DropcutTimeline", "DropcutRecipe", "DropcutPipeline"],
        "dropcut": ["DropcutSupport", "DropcutDigest", "DropcutTimeline", "DropcutSubtitles", "DropcutMediaIO", "DropcutRender", "DropcutReframe", "DropcutRecipe", "DropcutPipeline", "DropcutDaemon"],
    ]

    /// The command-line files that drive the daemon; every other command (render, plan,
    /// probe, validate) goes through the pipeline and never imports the daemon.
    static let daemonCommands: Set<String> = [
        "Sources/dropcut/Commands/WatchCommand.swift", "Sources/dropcut/Commands/WorkerCommand.swift", "Sources/dropcut/Commands/StatusCommand.swift", "Sources/dropcut/Commands/RetryCommand.swift", "Sources/dropcut/DaemonConfigOption.swift",
    ]

    @Test func modulesImportOnlyTheLayersBelowThem() throws {
        let files = try Self.sources()
        #expect(Set(files.map(\.module)).isSuperset(of: Self.layers.keys), "\(Set(files.map(\.module)))")
        record(files.flatMap(Self.layerViolations))
        // The render and daemon paths share the pipeline: both import it.
        #expect(files.contains { $0.path == "Sources/dropcut/Commands/RenderCommand.swift" && $0.imports.contains { $0.module == "DropcutPipeline" } })
        #expect(files.contains { $0.path == "Sources/Daemon/Worker/RenderWorker.swift" && $0.imports.contains { $0.module == "DropcutPipeline" } })
    }

    /// Every module Package.swift declares is in the checks: each C module (a system
    /// library, or a target of C or C++ sources) has owners in `owners`, and each Swift
    /// module under Sources/ a place in `layers` — a module added without them would be
    /// checked by nothing (Subtitles was, until it was found missing).
    @Test func everyModuleOfThePackageIsChecked() throws {
        let text = try String(contentsOfFile: Repository.path("Package.swift"), encoding: .utf8)
        let folders = Self.moduleFolders(text)
        let systemLibraries = Set(text.matches(of: #/\.systemLibrary\(\s*name:\s*"(?<name>[^"]+)"/#).map { String($0.output.name) })
        // Tests' support and benchmarks live outside Sources/.
        let targets = Set(text.matches(of: #/\.(?:target|executableTarget)\(\s*name:\s*"(?<name>[^"]+)"/#).map { String($0.output.name) })
            .filter { folders[$0]?.hasPrefix("Sources/") == true }
        #expect(systemLibraries.count >= 10 && targets.count >= 10, "\(systemLibraries) \(targets)")
        var cTargets: Set<String> = []
        for target in targets {
            let folder = Repository.path(folders[target] ?? "Sources/\(target)")
            let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
            if !files.contains(where: { $0.hasSuffix(".swift") }) { cTargets.insert(target) }
        }
        let cModules = systemLibraries.union(cTargets)
        #expect(cModules == Set(Self.owners.keys), "C modules \(cModules.sorted()) but owners for \(Self.owners.keys.sorted())")
        #expect(targets.subtracting(cTargets) == Set(Self.layers.keys),
                "Swift modules \(targets.subtracting(cTargets).sorted()) but layers for \(Self.layers.keys.sorted())")
    }

    /// A module imports only what Package.swift lists for it: SwiftPM builds every module
    /// into one folder, so an unlisted import of a module built anyway compiles today and
    /// breaks when the graph changes.
    @Test func modulesImportOnlyWhatPackageSwiftLists() throws {
        let text = try String(contentsOfFile: Repository.path("Package.swift"), encoding: .utf8)
        let dependencies = Self.targetDependencies(text)
        // A parser that found nothing would pass: make sure it read known lists.
        #expect(dependencies["DropcutDaemon"]?.contains("DropcutPipeline") == true, "\(dependencies)")
        #expect(dependencies["DropcutSupport"] == [], "\(dependencies)")
        let files = try Self.sources()
        let targets = Set(dependencies.keys)
        for file in files {
            let listed = dependencies[file.module] ?? []
            for imported in file.imports where targets.contains(imported.module) && imported.module != file.module {
                if !listed.contains(imported.module) {
                    record([Violation(path: file.path, line: imported.line,
                                      message: "\(file.module) imports \(imported.module), which Package.swift does not list for it")])
                }
            }
        }
    }

    /// TestSupport is a plain target, built by `swift build -c release` (scripts/demo and
    /// scripts/install build the binary so), where Swift Testing and XCTest are missing:
    /// it may use them only under `#if canImport(...)`.
    @Test func testSupportBuildsWithoutTheTestLibraries() throws {
        let root = Repository.path("Tests/TestSupport")
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: root) where name.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: (root as NSString).appendingPathComponent(name), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            var guarded: [String] = []   // the canImport conditions open at this line
            for (index, line) in lines.enumerated() {
                let text = line.trimmingCharacters(in: .whitespaces)
                if let module = text.firstMatch(of: #/^#if\s+canImport\((\w+)\)/#)?.output.1 {
                    guarded.append(String(module))
                } else if text.hasPrefix("#if") {
                    guarded.append("")
                } else if text.hasPrefix("#endif") {
                    _ = guarded.popLast()
                } else if let module = text.firstMatch(of: #/^(?:@\w+\s+)*(?:\w+\s+)?import\s+(Testing|XCTest)\b/#)?.output.1 {
                    checked += 1
                    if !guarded.contains(String(module)) {
                        record([Violation(path: "Tests/TestSupport/\(name)", line: index + 1,
                                          message: "imports \(module) outside #if canImport(\(module)): a release build of the package fails")])
                    }
                }
            }
        }
        #expect(checked > 0, "no test-library import found under \(root): the check reads nothing")
    }

    /// The parser on a made-up manifest: names in products and comments are not dependencies.
    @Test func packageSwiftParserReadsOnlyTargetDependencies() {
        let text = """
            products: [.library(name: "A", targets: ["A"])],
            // .target(name: "Old", dependencies: ["Gone"]),
            .target(name: "A"),
            .target(name: "B", dependencies: [
                "A", "CZ", // why
                .product(name: "Logging", package: "swift-log"),
            ]),
            .executableTarget(name: "tool", dependencies: ["B"], path: "x"),
            .testTarget(name: "BTests", dependencies: ["B"]),
            """
        #expect(Self.targetDependencies(text) == ["A": [], "B": ["A", "CZ"], "tool": ["B"], "BTests": ["B"]])
    }

    /// Every module in rooms: a folder per concept and at most 12 files at the module's
    /// top, so "where is ducking computed?" is found by name (Timeline/Model/Ducking.swift);
    /// a module of a dozen files or fewer may stay flat. And no file over 500 lines: one
    /// that long holds more than one concept.
    @Test(arguments: layers.keys.sorted())
    func moduleIsInRooms(module: String) throws {
        let files = try Self.sources().filter { $0.module == module }
        let top = files.filter { $0.path.split(separator: "/").count == 3 }
        #expect(files.count > 0, "no files in Sources/\(module)")
        #expect(top.count <= 12, "\(top.count) files at the top of Sources/\(module): \(top.map(\.path))")
        let long = files.map { ($0.path, $0.code.lines.count) }.filter { $0.1 > 500 }
        #expect(long.isEmpty, "files over 500 lines: \(long)")
    }

    /// The daemon lives in rooms by concept (Claims/, Files/, Jobs/, Worker/, Scheduling/,
    /// Systemd/, Config/), with a few files at its top, and its public API is what a
    /// library user calls; what only the package's targets and tests need is `package`.
    @Test func daemonIsInRoomsWithASmallPublicAPI() throws {
        let files = try Self.sources().filter { $0.module == "DropcutDaemon" }
        let top = files.filter { $0.path.split(separator: "/").count == 3 }
        #expect(top.count <= 12, "\(top.count) files at the top of Sources/Daemon: \(top.map(\.path))")
        #expect(files.count > top.count, "no rooms under Sources/Daemon")
        let declarations = files.flatMap { file in Self.publicDeclarations(file).map { "\(file.path):\($0.line): \($0.head)" } }
        #expect(declarations.count <= 40, "Daemon declares \(declarations.count) public symbols:\n\(declarations.joined(separator: "\n"))")
        // A pattern that counted nothing would pass: the known entry point is seen.
        #expect(declarations.contains { $0.contains("public static func run(logger: Logger) async -> Int32") }, "\(declarations)")
    }

    /// The rules on a made-up file: they catch what they are for, and not names in doc
    /// comments, strings or bodies.
    @Test func rulesCatchLeaksButNotCommentsStringsOrBodies() {
        let file = SourceFile(path: "Sources/Render/Leak.swift", module: "DropcutRender", text: #"""
            import CDropcutFFmpeg
            public import CDropcutFreeType
            /// public var frame: AVFrame, in prose only
            public var face: FT_Face { fatalError() }
            public func convert(_ x: Int,
                                to format: AVPixelFormat) {}
            public static let gray = Gray(mode: FT_PIXEL_MODE_GRAY)
            public var isKey: Bool { flags & AV_PKT_FLAG_KEY != 0 }
            public var message: String { "sd_journal_sendv \("failed: \(errno)") {" }
            public let after = 1   // the string above is closed
            fileprivate import CDropcutFreeType
            private var frame: AVFrame
            public init(format: String = "AV_PIX_FMT_NONE", size: Size? = nil) where T == AVFrame {}
            public var connection: OpaquePointer /* PGconn */ { fatalError() }
            public func status(_ s: ConnStatusType) {}
            public var easy: CURLcode { fatalError() }
            public func shape(_ b: hb_buffer_t) {}
            public var type: FriBidiCharType { fatalError() }
            public var pattern: FcPattern { fatalError() }
            public func breaks() -> dropcut_line_break { fatalError() }
            package var frame: AVFrame { fatalError() }
            """#)
        let violations = Self.importViolations(file) + Self.publicCTypeViolations(file)
        #expect(violations.map(\.line) == [1, 1, 2, 4, 5, 13, 15, 16, 17, 18, 19, 20, 21], "\(violations)")
        #expect(violations.first?.description.hasPrefix("Sources/Render/Leak.swift:1: ") == true)
        #expect(violations.first { $0.line == 13 }?.description.contains("AVFrame") == true)
        #expect(violations.first { $0.line == 20 }?.description.contains("dropcut_line_break") == true)
        #expect(violations.last?.description.contains("AVFrame") == true)

        let render = SourceFile(path: "Sources/dropcut/Commands/RenderCommand.swift", module: "dropcut", text: "import DropcutDaemon\nimport DropcutPipeline\n")
        #expect(Self.layerViolations(render).map(\.line) == [1])
        let recipe = SourceFile(path: "Sources/Recipe/X.swift", module: "DropcutRecipe", text: "import DropcutRender\nimport DropcutTimeline\n")
        #expect(Self.layerViolations(recipe).map(\.line) == [1])
        let daemon = SourceFile(path: "Sources/Daemon/X.swift", module: "DropcutDaemon", text: "@testable import dropcut\n")
        #expect(Self.daemonViolations(daemon).map(\.line) == [1])
        let engine = SourceFile(path: "Sources/Daemon/Jobs/X.swift", module: "DropcutDaemon",
                                text: "import DropcutPipeline\nimport DropcutRender\nimport DropcutSupport\nimport DropcutMediaIO\n")
        #expect(Self.layerViolations(engine).map(\.line) == [2, 4])
        let support = SourceFile(path: "Sources/Support/X.swift", module: "DropcutSupport", text: "import Foundation\nimport DropcutTimeline\n")
        #expect(Self.layerViolations(support).map(\.line) == [2])
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

    /// A C type's name, for every C module `owners` lists: FFmpeg's `AVFrame`,
    /// `AVPixelFormat`, `AV_PIX_FMT_…`, swscale's and swresample's contexts; FreeType's
    /// `FT_…`; HarfBuzz's `hb_…`; FriBidi's `FriBidi…`/`fribidi_…`; fontconfig's `Fc…`/`FC_…`;
    /// libcurl's `CURL…`/`curl_…`; libpq's `PG…`, `pg_…` and its status enums; OpenSSL's
    /// `EVP_…`/`SHA256_…`; zlib's `z_stream`; systemd's `sd_…`; the shims' `dropcut_…` (CLinux, RenderKernels,
    /// LineBreaking); CVision's `cvision_…`.
    static var cName: Regex<Substring> {
        #/\bAV[A-Z][A-Za-z0-9]+\b|\bAV_\w+|\bSw[rs]Context\b|\bFT_\w+|\bhb_\w+|\bFriBidi\w+|\bfribidi_\w+|\bFc[A-Z]\w+|\bFC_\w+|\bCURL\w*|\bcurl_\w+|\bPG[a-z]\w*|\bpg_\w+|\bConnStatusType\b|\bExecStatusType\b|\bPostgresPollingStatusType\b|\bEVP_\w+|\bSHA256_\w+|\bz_stream\b|\bsd_\w+|\bdropcut_\w+|\bcvision_\w+/#
    }

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

    /// `public`, `open` or `package` followed, after other modifiers, by what it declares:
    /// what another module sees.
    static var exposedDeclaration: Regex<Substring> {
        #/(?:^|[\s(])(?:public|open|package)(?:\(set\))?\s+(?:(?:@\w+|[a-z]+(?:\([a-z]+\))?)\s+)*?(?:func|var|let|init|subscript|class|struct|enum|protocol|typealias|actor|extension|case|macro|associatedtype)\b/#
    }

    /// The public, open and package declarations' heads and their lines.
    static func exposedDeclarations(_ file: SourceFile) -> [(line: Int, head: String)] {
        let pattern = exposedDeclaration
        return file.code.lines.enumerated().compactMap { index, line in
            guard line.contains("public") || line.contains("open") || line.contains("package"),
                  let declaration = line.firstMatch(of: pattern) else { return nil }
            let head = file.code.declarationHead(line: index, column: declaration.range.lowerBound)
            return (index + 1, head.trimmingCharacters(in: .whitespaces))
        }
    }

    static func publicCTypeViolations(_ file: SourceFile) -> [Violation] {
        let pattern = cName
        return exposedDeclarations(file).compactMap { line, head in
            guard let name = head.firstMatch(of: pattern) else { return nil }
            return Violation(path: file.path, line: line,
                             message: "public declaration names the C type \(name.output): \(head)")
        }
    }

    static func daemonViolations(_ file: SourceFile) -> [Violation] {
        guard file.module == "DropcutDaemon" else { return [] }
        return file.imports.filter { $0.module == "dropcut" }.map {
            Violation(path: file.path, line: $0.line, message: "DropcutDaemon must not import dropcut (the command-line tool)")
        }
    }

    static func layerViolations(_ file: SourceFile) -> [Violation] {
        guard let allowed = layers[file.module] else { return [] }
        return file.imports.compactMap { imported in
            if layers[imported.module] != nil, imported.module != file.module, !allowed.contains(imported.module) {
                return Violation(path: file.path, line: imported.line, message: "\(file.module) must not import \(imported.module)")
            }
            if imported.module == "DropcutDaemon", file.module == "dropcut", !daemonCommands.contains(file.path) {
                return Violation(path: file.path, line: imported.line,
                                 message: "only the daemon's commands import DropcutDaemon; render and plan go through DropcutPipeline")
            }
            return nil
        }
    }

    /// Each target's and test target's dependencies by name (products excluded), read
    /// from a manifest's `.target(name:dependencies:)` calls; comments are skipped.
    static func targetDependencies(_ manifest: String) -> [String: Set<String>] {
        let code = manifest.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
        var result: [String: Set<String>] = [:]
        let target = #/\.(?:target|executableTarget|testTarget)\(\s*name:\s*"(?<name>[^"]+)"/#
        for match in code.matches(of: target) {
            var names: Set<String> = []
            let rest = code[match.range.upperBound...]
            // The call's own text: up to the parenthesis that closes it.
            var depth = 1, end = rest.startIndex
            while end < rest.endIndex, depth > 0 {
                if rest[end] == "(" { depth += 1 } else if rest[end] == ")" { depth -= 1 }
                end = rest.index(after: end)
            }
            let call = rest[..<end]
            if let list = call.range(of: "dependencies:") {
                // Quoted names at the list's own level; `.product(name: ...)` is one level deeper.
                var level = 0, index = list.upperBound, started = false
                while index < call.endIndex {
                    let character = call[index]
                    if character == "[" { level += 1; started = true } else if character == "]" { level -= 1 }
                    else if character == "(" { level += 1 } else if character == ")" { level -= 1 }
                    else if character == "\"", level == 1 {
                        let after = call.index(after: index)
                        guard let close = call[after...].firstIndex(of: "\"") else { break }
                        names.insert(String(call[after..<close]))
                        index = close
                    }
                    if started && level == 0 { break }
                    index = call.index(after: index)
                }
            }
            result[String(match.output.name)] = names
        }
        return result
    }

    /// Each module's folder, from a manifest: its `path:`, or `Sources/<name>`.
    static func moduleFolders(_ manifest: String) -> [String: String] {
        var folders: [String: String] = [:]
        let declaration = #/\.(?:systemLibrary|target|executableTarget)\(\s*name:\s*"(?<name>[^"]+)"/#
        for match in manifest.matches(of: declaration) {
            let rest = manifest[match.range.upperBound...]
            // The call's own text: up to the parenthesis that closes it.
            var depth = 1, end = rest.startIndex
            while end < rest.endIndex, depth > 0 {
                if rest[end] == "(" { depth += 1 } else if rest[end] == ")" { depth -= 1 }
                end = rest.index(after: end)
            }
            let path = rest[..<end].firstMatch(of: #/path:\s*"(?<path>[^"]+)"/#).map { String($0.output.path) }
            folders[String(match.output.name)] = path ?? "Sources/\(match.output.name)"
        }
        return folders
    }

    // MARK: The sources

    /// Every .swift file under Sources/, its module the one Package.swift builds from the
    /// folder it is in (`Sources/Render` is `DropcutRender`).
    static func sources() throws -> [SourceFile] {
        let files = try parsedSources.get()
        #expect(files.count > 50, "only \(files.count) files under Sources/")
        return files
    }

    /// Read and lexed once for every test of the suite: lexing all of Sources/ took a
    /// debug build 2.5 s of CPU, and each test did it again.
    private static let parsedSources: Result<[SourceFile], CocoaError> = {
        let root = Repository.path("Sources")
        guard let walk = FileManager.default.enumerator(atPath: root) else {
            return .failure(CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: root]))
        }
        guard let manifest = try? String(contentsOfFile: Repository.path("Package.swift"), encoding: .utf8) else {
            return .failure(CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: Repository.path("Package.swift")]))
        }
        let modules = moduleFolders(manifest)
        var files: [SourceFile] = []
        while let relative = walk.nextObject() as? String {
            guard relative.hasSuffix(".swift"), let folder = relative.split(separator: "/").first else { continue }
            let module = modules.first { $0.value == "Sources/\(folder)" }?.key ?? String(folder)
            let path = (root as NSString).appendingPathComponent(relative)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                return .failure(CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path]))
            }
            files.append(SourceFile(path: "Sources/" + relative, module: module, text: text))
        }
        return .success(files.sorted { $0.path < $1.path })
    }()
}

/// One rule broken at `path:line`.
struct Violation: CustomStringConvertible {
    let path: String
    let line: Int
    let message: String
    var description: String { "\(path):\(line): \(message)" }
}

/// A Swift file of Sources/ and its import statements.
struct SourceFile: Sendable {
    struct Import: Sendable {
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
