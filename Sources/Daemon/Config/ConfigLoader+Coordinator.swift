import Foundation
import DropcutRecipe
import DropcutSupport

/// The `coordinator:` key: a PostgreSQL server that decides for a farm of hosts
/// (docs/scale-out.md, "PostgreSQL coordinator").
extension ConfigLoader {
    static let coordinatorKeys = ["url", "password_file", "password_credential"]

    /// `coordinator: postgresql://user@host:5432/db[?sslmode=…]`, or the same as
    /// `{ url: …, password_file: …, password_credential: … }`. The password is never in
    /// the config: it is read from a file, or from a systemd credential (a file of that
    /// name in `$CREDENTIALS_DIRECTORY`, which `LoadCredential=` fills).
    static func decodeCoordinator(_ node: RecipeNode, base: String, _ reader: inout RecipeReader,
                                  credentials: String? = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"]) -> CoordinatorConfig? {
        let urlNode: RecipeNode
        var fields: Fields?
        if case .scalar = node {
            urlNode = node
        } else {
            guard let f = reader.fields(node, "coordinator", allowed: coordinatorKeys) else { return nil }
            guard let url = f["url"] else {
                reader.error("coordinator.url is missing: postgresql://user@host:5432/database", at: f.location)
                return nil
            }
            urlNode = url
            fields = f
        }
        guard let text = reader.string(urlNode, "coordinator") else { return nil }
        var config: CoordinatorConfig
        do {
            config = try CoordinatorConfig.parse(url: text)
        } catch {
            reader.error("coordinator: \(error)", at: urlNode.location)
            return nil
        }
        guard let fields else { return config }
        if fields["password_file"] != nil && fields["password_credential"] != nil {
            reader.error("coordinator.password_file and coordinator.password_credential exclude each other: give one", at: fields.location)
            return nil
        }
        let source: (path: String, key: String, node: RecipeNode)
        if let node = fields["password_file"], let file = reader.string(node, "coordinator.password_file") {
            source = (absolute(file, base: base), "coordinator.password_file", node)
        } else if let node = fields["password_credential"], let name = reader.string(node, "coordinator.password_credential") {
            guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
                reader.error("coordinator.password_credential must be a credential's name (as in LoadCredential=), not a path; got '\(name)'", at: node.location)
                return nil
            }
            guard let credentials, !credentials.isEmpty else {
                reader.error("coordinator.password_credential \(name): no systemd credentials are passed to this process ($CREDENTIALS_DIRECTORY is not set: add LoadCredential=\(name):/path/to/file to the unit)",
                             at: node.location)
                return nil
            }
            source = ((credentials as NSString).appendingPathComponent(name), "coordinator.password_credential", node)
        } else {
            return config
        }
        do {
            let text = try TextFile.read(source.path, followSymlinks: true, limit: 4096)
            guard let password = CoordinatorConfig.password(fromFile: text) else {
                reader.error("\(source.key) \(source.path): not a password (empty, over 1024 bytes, or more than one line)", at: source.node.location)
                return nil
            }
            config.password = password
        } catch {
            reader.error("\(source.key) \(source.path): \(error)", at: source.node.location)
            return nil
        }
        return config
    }
}
