import Foundation

/// Finds the files a recipe names (overlay images, fonts, music, extra clips) and keeps
/// them inside the folders they may come from: the recipe's own folder and the asset
/// folders given on the command line or in the daemon's config. A path that leaves those
/// folders — by `..` or through a symlink — is refused, after symlinks are resolved.
public struct AssetResolver: Sendable {
    /// Extra folders assets may come from (`--assets`, a folder's `assets:`).
    public var assetDirectories: [String]
    /// Folders searched for fonts after the asset folders.
    public var fontDirectories: [String]

    public init(assetDirectories: [String] = [],
                fontDirectories: [String] = ["/usr/share/fonts", "/usr/local/share/fonts"]) {
        self.assetDirectories = assetDirectories
        self.fontDirectories = fontDirectories
    }

    /// Why a path was refused.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case notFound(String, searched: [String])
        case outsideAssetFolders(String, resolved: String)
        case notAFile(String)

        public var description: String {
            switch self {
            case let .notFound(path, searched):
                return "'\(path)' not found (looked in \(searched.joined(separator: ", ")))"
            case let .outsideAssetFolders(path, resolved):
                return "'\(path)' resolves to \(resolved), outside the recipe's folder and the asset folders"
            case let .notAFile(path):
                return "'\(path)' is not a regular file"
            }
        }
    }

    /// The real path of `path`, written in the recipe at `recipeFile`.
    public func resolve(_ path: String, recipeFile: String) -> Result<String, Failure> {
        let roots = searchRoots(recipeFile: recipeFile)
        var escaped: String?
        for root in roots {
            let candidate = path.hasPrefix("/") ? path : (root as NSString).appendingPathComponent(path)
            guard let real = Self.realPath(candidate) else { continue }
            guard Self.isInside(real, Self.realPath(root) ?? root) else {
                escaped = escaped ?? real
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue else {
                return .failure(.notAFile(path))
            }
            return .success(real)
        }
        if let escaped { return .failure(.outsideAssetFolders(path, resolved: escaped)) }
        return .failure(.notFound(path, searched: roots))
    }

    /// A font by file name: the asset folders first, then the system font folders
    /// (searched recursively, as fontconfig would).
    public func resolveFont(_ name: String, recipeFile: String) -> Result<String, Failure> {
        let local = resolve(name, recipeFile: recipeFile)
        if case .success = local { return local }
        if case .failure(.outsideAssetFolders) = local { return local }
        guard !name.contains("/") else { return local }
        // A file name (`DejaVuSans-Bold.ttf`), or a family and style (`DejaVu Sans Bold`)
        // matched against font file names, which follow the Family-Style convention.
        let wanted = Self.fontKey(name)
        let isFileName = ["ttf", "otf", "ttc"].contains((name as NSString).pathExtension.lowercased())
        for directory in fontDirectories {
            guard let files = FileManager.default.enumerator(atPath: directory) else { continue }
            for case let file as String in files {
                let base = (file as NSString).lastPathComponent
                let matches = isFileName ? base == name
                    : ["ttf", "otf", "ttc"].contains((base as NSString).pathExtension.lowercased())
                        && Self.fontKey((base as NSString).deletingPathExtension) == wanted
                if matches { return .success((directory as NSString).appendingPathComponent(file)) }
            }
        }
        return .failure(.notFound(name, searched: searchRoots(recipeFile: recipeFile) + fontDirectories))
    }

    /// A font name folded for matching: lower case, without spaces, dashes and underscores,
    /// and without a trailing "regular" (`DejaVu Sans` finds `DejaVuSans.ttf`).
    static func fontKey(_ name: String) -> String {
        var key = name.lowercased().filter { !" -_".contains($0) }
        if key.hasSuffix("regular") { key.removeLast("regular".count) }
        return key
    }

    private func searchRoots(recipeFile: String) -> [String] {
        let recipeDir = (recipeFile as NSString).deletingLastPathComponent
        return [recipeDir.isEmpty ? "." : recipeDir] + assetDirectories
    }

    /// realpath(3): the absolute path with every symlink resolved; nil when missing.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isInside(_ path: String, _ root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }
}
