import Foundation
import Testing
import TestSupport

/// The documentation names nothing the repository lacks: every relative link in README.md
/// and docs/*.md reaches a file (and, into a Markdown file, a heading), every `*.md` that
/// the code, tests, scripts, systemd files and recipes name exists, and the README stays a
/// front page.
@Suite struct DocumentationTests {
    /// The README is the front page; the reference lives in docs/.
    static let readmeLineLimit = 400

    /// The folders whose files may name documents (comments, messages, unit files).
    static let namingFolders = ["Sources", "Tests", "scripts", "systemd", "recipes", "Benchmarks", ".ci"]

    /// What each C module wraps, as the README names it: every module of
    /// `ModuleBoundaryTests.owners` that wraps a library (CLinux and RenderKernels are
    /// dropcut's own C).
    static let wrappedLibraries: [String: String] = [
        "CDropcutFFmpeg": "FFmpeg", "CDropcutSystemd": "libsystemd", "CDropcutFreeType": "FreeType", "CDropcutHarfBuzz": "HarfBuzz",
        "CDropcutFriBidi": "FriBidi", "CDropcutLineBreaking": "ICU", "CDropcutFontconfig": "fontconfig", "CDropcutZlib": "zlib",
        "CDropcutCurl": "libcurl", "CDropcutLibpq": "libpq", "CDropcutCrypto": "OpenSSL", "CDropcutVision": "OpenCV",
    ]

    /// The lists the docs keep of the code are the code's: the README's list of the
    /// libraries `scripts/bootstrap` installs names every library a C module wraps, and
    /// docs/design.md's list of C modules is exactly Package.swift's (it once still named
    /// CUnibreak, removed, and missed four).
    @Test func theDocsListEveryCModuleAndLibrary() throws {
        let owned = Set(ModuleBoundaryTests.owners.keys)
        #expect(Set(Self.wrappedLibraries.keys).union(["CDropcutLinux", "CDropcutRenderKernels"]) == owned,
                "C modules without a library name here: \(owned.subtracting(Self.wrappedLibraries.keys).sorted())")
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let bootstrap = try #require(readme.range(of: "Both call `scripts/bootstrap`").map { String(readme[$0.lowerBound...].prefix(900)) })
        for (module, library) in Self.wrappedLibraries {
            #expect(bootstrap.contains(library), "README's bootstrap paragraph does not name \(library) (\(module))")
        }
        let design = try String(contentsOfFile: Repository.path("docs/design.md"), encoding: .utf8)
        // design.md names folders: `CFFmpeg/` holds the module CDropcutFFmpeg.
        let folders = ModuleBoundaryTests.moduleFolders(try String(contentsOfFile: Repository.path("Package.swift"), encoding: .utf8))
        let ownedFolders = Set(owned.map { String((folders[$0] ?? $0).split(separator: "/").last ?? "") })
        let listed = Set(design.matches(of: #/\b(?<name>C[A-Z][A-Za-z]+|LineBreaking|RenderKernels)\/(?=\s)/#).map { String($0.output.name) })
        #expect(listed == ownedFolders, "docs/design.md lists \(listed.sorted()); the package has \(ownedFolders.sorted())")
    }

    /// Names of files a command writes, shown in a usage line, not documents to read:
    /// `scripts/bench > results.md`.
    static let writtenNotRead: Set<String> = ["results.md"]

    /// Where the install puts README.md and docs/: a name under it is the repository's.
    /// Where the Debian package installs the documents.
    static let installedDocs = ["/usr/share/doc/dropcut/"]

    struct Finding: CustomStringConvertible {
        let file: String
        let line: Int
        let message: String
        var description: String { "\(file):\(line): \(message)" }
    }

    // MARK: The checks

    @Test func everyRelativeLinkReachesAFileAndItsHeading() throws {
        let documents = try Self.documents()
        #expect(documents.contains("README.md") && documents.contains("docs/recipes.md"), "\(documents)")
        var findings: [Finding] = []
        for document in documents {
            let text = try String(contentsOfFile: Repository.path(document), encoding: .utf8)
            findings += Self.linkFindings(in: text, of: document)
        }
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test func everyDocumentInDocsIsLinkedFromTheReadme() throws {
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let linked = Set(Self.links(in: readme).map { $0.target.split(separator: "#", omittingEmptySubsequences: false)[0] })
        for document in try Self.documents() where document.hasPrefix("docs/") {
            #expect(linked.contains(Substring(document)), "README.md does not link to \(document)")
        }
    }

    @Test func everyNamedMarkdownFileExists() throws {
        var findings: [Finding] = []
        var seen = 0
        for file in try Self.namingFiles() {
            guard let text = try? String(contentsOfFile: Repository.path(file), encoding: .utf8) else { continue }
            let found = Self.mentionFindings(in: text, of: file)
            seen += Self.mentions(in: text).count
            findings += found
        }
        // A wrong root or pattern would find nothing and pass: the units name the README.
        #expect(seen > 10, "only \(seen) mentions of .md files found")
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test func readmeIsAFrontPage() throws {
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count - (readme.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= Self.readmeLineLimit, "README.md has \(lines) lines, more than \(Self.readmeLineLimit): move reference material to docs/")
    }

    /// The checkers on made-up text: they find a missing file, a missing heading and an
    /// unknown document, and pass what is there.
    @Test func checkersFindWhatIsBroken() {
        let md = ".md"
        let missing = "nowhere-at-all" + md
        let text = """
            # A page

            [fine](recipes.md#recipe-reference), [same page](#a-page), [up](../README\(md)#two-commands),
            [web](https://example.com/), `[in code](\(missing))`, [gone](\(missing)),
            [no heading](design.md#no-such-heading), [no anchor here](#nothing-here)

            ```
            [in a fence](\(missing))
            ```
            """
        let findings = Self.linkFindings(in: text, of: "docs/made-up" + md)
        #expect(findings.count == 3, "\(findings)")
        #expect(findings.contains { $0.line == 4 && $0.message.contains(missing) }, "\(findings)")
        #expect(findings.contains { $0.line == 5 && $0.message.contains("no-such-heading") }, "\(findings)")
        #expect(findings.contains { $0.line == 5 && $0.message.contains("nothing-here") }, "\(findings)")

        let named = "// see docs/\(missing), README.md, docs/daemon.md and file://\(Self.installedDocs[0])docs/hdr.md\n"
        let unknown = Self.mentionFindings(in: named, of: "Sources/Made/Up.swift")
        #expect(unknown.count == 1 && unknown[0].message.contains("docs/" + missing), "\(unknown)")
    }

    @Test func slugsAreGitHubs() {
        #expect(Self.slug("What README.md holds (and why)") == "what-readmemd-holds-and-why")
        #expect(Self.slug("`output`") == "output")
        #expect(Self.slug("Design decisions and why") == "design-decisions-and-why")
        #expect(Self.slug("Two commands") == "two-commands")
        let anchors = Self.anchors(in: "# A\n## Notes\n```\n# not a heading\n```\n## Notes\n")
        #expect(anchors == ["a", "notes", "notes-1"], "\(anchors)")
    }

    // MARK: Markdown

    /// README.md and docs/*.md, relative to the repository.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Repository.path("docs"))
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped (backticks, dots,
    /// parentheses...), spaces made hyphens.
    static func slug(_ heading: String) -> String {
        var out = ""
        for character in heading.lowercased() {
            if character == " " {
                out.append("-")
            } else if character == "-" || character == "_" || character.isLetter || character.isNumber {
                out.append(character)
            }
        }
        return out
    }

    /// The anchors of a Markdown text's headings (outside code fences); a repeated heading
    /// gets `-1`, `-2`... as on GitHub.
    static func anchors(in text: String) -> Set<String> {
        var anchors: Set<String> = []
        var counts: [String: Int] = [:]
        for (_, line) in proseLines(text) {
            guard let match = line.wholeMatch(of: #/[#]{1,6}[ \t]+(.*?)[ \t#]*/#) else { continue }
            let base = slug(String(match.1))
            let count = counts[base, default: 0]
            counts[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// Lines outside code fences, with their 1-based numbers.
    static func proseLines(_ text: String) -> [(Int, String)] {
        var out: [(Int, String)] = []
        var inFence = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if !inFence { out.append((index + 1, String(line))) }
        }
        return out
    }

    /// The targets of `[text](target)` and `![alt](target)` outside code fences and code spans.
    static func links(in text: String) -> [(line: Int, target: String)] {
        var out: [(line: Int, target: String)] = []
        for (number, line) in proseLines(text) {
            let prose = line.replacing(#/`[^`]*`/#, with: "")
            for match in prose.matches(of: #/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/#) {
                out.append((number, String(match.1)))
            }
        }
        return out
    }

    /// Relative links of `text` (the document at `document`, relative to the repository)
    /// that reach no file, or no heading of the Markdown file they point into.
    static func linkFindings(in text: String, of document: String) -> [Finding] {
        var findings: [Finding] = []
        let folder = (document as NSString).deletingLastPathComponent
        for (line, target) in links(in: text) {
            if target.contains(":") { continue }  // https:, mailto:, file:
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let path = parts[0], anchor = parts.count > 1 ? parts[1] : nil
            let relative = path.isEmpty ? document : ((folder as NSString).appendingPathComponent(path) as NSString).standardizingPath
            let full = Repository.path(relative)
            let page: String?
            if path.isEmpty {
                page = text
            } else {
                guard FileManager.default.fileExists(atPath: full) else {
                    findings.append(Finding(file: document, line: line, message: "\(target): no file \(relative)"))
                    continue
                }
                page = relative.hasSuffix(".md") ? try? String(contentsOfFile: full, encoding: .utf8) : nil
            }
            if let anchor, let page, !anchors(in: page).contains(anchor) {
                findings.append(Finding(file: document, line: line, message: "\(target): \(relative) has no heading #\(anchor)"))
            }
        }
        return findings
    }

    // MARK: Names of documents

    /// Every file under the naming folders, relative to the repository.
    static func namingFiles() throws -> [String] {
        var files: [String] = []
        for folder in namingFolders {
            guard let enumerator = FileManager.default.enumerator(atPath: Repository.path(folder)) else { continue }
            while let relative = enumerator.nextObject() as? String {
                let path = folder + "/" + relative
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: Repository.path(path), isDirectory: &isDirectory), !isDirectory.boolValue {
                    files.append(path)
                }
            }
        }
        return files
    }

    /// Every name ending in `.md` (with any folders before it) in `text`, with its line.
    static func mentions(in text: String) -> [(line: Int, name: String)] {
        var out: [(line: Int, name: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(".md") {
            for match in line.matches(of: #/[A-Za-z0-9_.\/-]+\.md(?![A-Za-z0-9_])/#) {
                out.append((index + 1, String(match.0)))
            }
        }
        return out
    }

    /// The named `.md` files of `text` that the repository does not hold: a name is looked
    /// up from the repository's root (after the install's doc folder, if it is under it),
    /// and a bare file name in docs/ too.
    static func mentionFindings(in text: String, of file: String) -> [Finding] {
        mentions(in: text).compactMap { line, name in
            var relative = name
            for folder in installedDocs {
                if let range = relative.range(of: folder) { relative = String(relative[range.upperBound...]) }
            }
            // `../README.md` in a document under docs/ is the root's.
            while relative.hasPrefix("./") || relative.hasPrefix("../") { relative.removeFirst(relative.hasPrefix("./") ? 2 : 3) }
            let candidates = relative.contains("/") ? [relative] : [relative, "docs/" + relative]
            if writtenNotRead.contains(relative) || candidates.contains(where: { FileManager.default.fileExists(atPath: Repository.path($0)) }) {
                return nil
            }
            return Finding(file: file, line: line, message: "names \(name), which the repository does not hold")
        }
    }
}
