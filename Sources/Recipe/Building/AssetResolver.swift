import Foundation

/// Finds the files a recipe names (overlay images, fonts, music, extra clips) and keeps
/// them inside the folders they may come from: the recipe's own folder and the asset
/// folders given on the command line or in the daemon's config. A path that leaves those
/// folders — by `..` or through a symlink — is refused, after symlinks are resolved.
///
/// Searched in order: the recipe's folder, the asset folders, then an `assets/` folder
/// beside the recipe, if there is one. That last place lets a recipe ship with sample
/// assets (the examples in `recipes/` name `logo.png`, found in `recipes/assets/`) while
/// any asset folder given still wins — so the same recipe, copied next to the daemon's
/// config, picks up the real logo from its asset folders. It grants nothing new: a file
/// found there must still lie inside the recipe's own folder after symlinks.
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
    package func resolve(_ path: String, recipeFile: String) -> Result<String, Failure> {
        var escaped: String?
        for (folder, root) in searchFolders(recipeFile: recipeFile) {
            let candidate = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
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
        return .failure(.notFound(path, searched: searchFolders(recipeFile: recipeFile).map(\.folder)))
    }

    /// A font by file name: the asset folders first, then the system font folders
    /// (searched recursively, as fontconfig would).
    package func resolveFont(_ name: String, recipeFile: String) -> Result<String, Failure> {
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
        return .failure(.notFound(name, searched: searchFolders(recipeFile: recipeFile).map(\.folder) + fontDirectories))
    }

    /// A font name folded for matching: lower case, without spaces, dashes and underscores,
    /// and without a trailing "regular" (`DejaVu Sans` finds `DejaVuSans.ttf`).
    static func fontKey(_ name: String) -> String {
        var key = name.lowercased().filter { !" -_".contains($0) }
        if key.hasSuffix("regular") { key.removeLast("regular".count) }
        return key
    }

    /// The name of the folder beside a recipe searched last, for the assets it ships with.
    static let bundledAssetsFolder = "assets"

    /// Where to look, in order, each with the folder a file found there must stay inside:
    /// the recipe's folder, each asset folder, and the recipe's `assets/` folder when it
    /// exists (listed only then, so "looked in" names real places) — kept inside the
    /// recipe's folder, not inside wherever a symlinked `assets` points.
    private func searchFolders(recipeFile: String) -> [(folder: String, root: String)] {
        let directory = (recipeFile as NSString).deletingLastPathComponent
        let recipeDir = directory.isEmpty ? "." : directory
        var folders = [(folder: recipeDir, root: recipeDir)] + assetDirectories.map { (folder: $0, root: $0) }
        let bundled = (recipeDir as NSString).appendingPathComponent(Self.bundledAssetsFolder)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: bundled, isDirectory: &isDirectory), isDirectory.boolValue {
            folders.append((folder: bundled, root: recipeDir))
        }
        return folders
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
