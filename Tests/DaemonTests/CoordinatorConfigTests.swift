import Foundation
import Testing
import TestSupport
import DropcutRecipe
@testable import DropcutDaemon

/// The coordinator's address (`CoordinatorConfig`): the URLs it takes and why it refuses
/// the others, libpq's connection string made from it — checked by a real libpq against
/// a real PostgreSQL that asks for a password full of quotes and backslashes — and the
/// parser on random input.
@Suite struct CoordinatorConfigTests {
    @Test func takesTheURLsOfTheIssue() throws {
        let plain = try CoordinatorConfig.parse(url: "postgresql://dropcut@db.example.org:5433/farm")
        #expect(plain.host == "db.example.org" && plain.port == 5433 && plain.user == "dropcut" && plain.database == "farm")
        #expect(plain.sslMode == nil && plain.password == nil)
        #expect(plain.target == "db.example.org:5433/farm")

        let defaults = try CoordinatorConfig.parse(url: "postgres://render_farm@10.0.0.7/dropcut?sslmode=verify-full")
        #expect(defaults.port == 5432 && defaults.host == "10.0.0.7" && defaults.sslMode == .verifyFull)

        let v6 = try CoordinatorConfig.parse(url: "postgresql://a@[::1]:6000/b")
        #expect(v6.host == "::1" && v6.port == 6000 && v6.target == "[::1]:6000/b")
    }

    @Test(arguments: [
        ("mysql://u@h/d", "must start with postgresql://"),
        ("postgresql://u:secret@h/d", "the password does not go in the config"),
        ("postgresql://h/d", "names no user"),
        ("postgresql://u@h", "names no database"),
        ("postgresql://u@h/", "empty database name"),
        ("postgresql://u@/d", "names no host"),
        ("postgresql://u@h:0/d", "port that is not a number from 1 to 65535"),
        ("postgresql://u@h:65536/d", "port that is not a number from 1 to 65535"),
        ("postgresql://u@h:54x/d", "port that is not a number"),
        ("postgresql://u@[::g]/d", "not an IPv6 address"),
        ("postgresql://u@[::1/d", "without its closing ]"),
        ("postgresql://u@h/d%20x", "percent-escapes"),
        ("postgresql://u@h/d?sslmode=maybe", "sslmode must be one of"),
        ("postgresql://u@h/d?sslmode=require&sslmode=disable", "sslmode twice"),
        ("postgresql://u@h/d?options=-c%20x", "percent-escapes"),
        ("postgresql://u@h/d?application_name=x", "takes only the sslmode parameter"),
        ("postgresql://u@h/d#x", "fragment"),
        ("postgresql://u@h/d b", "printable ASCII without spaces"),
        ("postgresql://u@h/" + String(repeating: "d", count: 64), "longer than 63 bytes"),
        ("postgresql://u@h/a/b", "characters other than letters"),
        ("postgresql://u@h_x/d", "not a name or an address"),
    ])
    func refusesWithTheReason(url: String, reason: String) {
        #expect {
            _ = try CoordinatorConfig.parse(url: url)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func aPasswordFileHoldsOneLine() {
        #expect(CoordinatorConfig.password(fromFile: "s3cret\n") == "s3cret")
        #expect(CoordinatorConfig.password(fromFile: "with space 'and' \\ too\r\n") == "with space 'and' \\ too")
        #expect(CoordinatorConfig.password(fromFile: "\n") == nil)
        #expect(CoordinatorConfig.password(fromFile: "two\nlines\n") == nil)
        #expect(CoordinatorConfig.password(fromFile: "nul\0byte") == nil)
        #expect(CoordinatorConfig.password(fromFile: String(repeating: "x", count: 1025)) == nil)
    }

    /// The connection string is read by libpq itself: a role whose password holds quotes,
    /// backslashes, spaces and `=` (what would break an unquoted conninfo, or let a value
    /// add a keyword) connects with it, against a server that checks it (scram-sha-256),
    /// and is refused with another.
    @Test(.tags(.slow)) func libpqReadsTheConnectionStringAsMeant() async throws {
        let server = try await PostgresServer()
        let password = #"it's a \'quoted\' pass word = host=evil"#
        let admin = try PostgresConnection(conninfo: server.conninfo, target: "test")
        try admin.execute("CREATE ROLE farm LOGIN PASSWORD '\(password.replacingOccurrences(of: "'", with: "''"))'")
        try admin.execute("GRANT ALL ON DATABASE dropcut TO farm")
        // Passwords checked for this role over TCP; everything else stays as initdb made it.
        let hba = (server.dataDirectory as NSString).appendingPathComponent("pg_hba.conf")
        let rules = try String(contentsOfFile: hba, encoding: .utf8)
        try ("host all farm 127.0.0.1/32 scram-sha-256\n" + rules).write(toFile: hba, atomically: false, encoding: .utf8)
        try admin.query("SELECT pg_reload_conf()")

        var config = try CoordinatorConfig.parse(url: "postgresql://farm@127.0.0.1:\(server.port)/dropcut?sslmode=disable")
        // The reload is applied by the server in its own time: a wrong password is refused
        // once it is.
        config.password = password + "x"
        var refusal = ""
        for _ in 0..<200 where refusal.isEmpty {
            do {
                _ = try PostgresConnection(conninfo: config.conninfo, target: config.target)
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                refusal = "\(error)"
            }
        }
        #expect(refusal.contains("password authentication failed"), "\(refusal)")

        config.password = password
        let connection = try PostgresConnection(conninfo: config.conninfo, target: config.target)
        let row = try connection.query("SELECT current_user, current_database(), inet_server_port()::text")
        #expect(row.first == ["farm", "dropcut", "\(server.port)"])

    }

    /// Random URLs from a hostile alphabet: never a trap; what is taken is in range.
    @Test func randomURLsNeverTrap() {
        let alphabet = Array("postgresql:/@[]:?&=#%.-_0123456789abczAZ ".utf8) + [0, 0xc3, 0xa9, 0xff]
        let seeds = ["postgresql://u@h:5432/d?sslmode=require", "postgresql://u@[::1]:1/d", "postgres://a@b/c"]
        var random = SplitMix64(state: 33)
        var taken = 0
        for n in 0..<20_000 {
            var bytes = Array(seeds[n % seeds.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes.insert(byte, at: at)
                case 1: if at < bytes.count { bytes[at] = byte }
                default: if at < bytes.count { bytes.remove(at: at) }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let config = try? CoordinatorConfig.parse(url: text) else { continue }
            taken += 1
            #expect((1...65535).contains(config.port), "\(text.debugDescription)")
            #expect(!config.user.isEmpty && config.user.utf8.count <= 63 && !config.database.isEmpty && config.database.utf8.count <= 63,
                    "\(text.debugDescription)")
            #expect(!config.host.isEmpty && !config.conninfo.isEmpty)
        }
        // Some mutants are still addresses, so the checks above ran.
        #expect(taken > 100, "\(taken) taken")
    }

    // MARK: The config key

    static func load(_ coordinator: String, in dir: TemporaryDirectory) throws(ConfigError) -> DaemonConfig {
        try? FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        return try ConfigLoader.load(yaml: coordinator + "\n" + ConnectConfigTests.folders, path: dir.file("dropcut.yaml"))
    }

    static func errors(_ coordinator: String, in dir: TemporaryDirectory) -> String {
        do {
            _ = try load(coordinator, in: dir)
            return ""
        } catch {
            return error.description
        }
    }

    /// `coordinator:` as a URL or as a mapping with a password file; refused with the
    /// reason at its line: a bad URL, both password sources, a credential without systemd's
    /// credentials, a credential name that is a path, a password file of two lines.
    @Test func theConfigKeyTakesAURLOrAMappingAndNeverAPasswordInline() throws {
        let dir = try TemporaryDirectory()
        let plain = try Self.load("coordinator: postgresql://dropcut@db.example.org/farm?sslmode=require", in: dir)
        #expect(plain.coordinator?.target == "db.example.org:5432/farm" && plain.coordinator?.sslMode == .require)
        #expect(try Self.load("", in: dir).coordinator == nil)

        try "s3cr'et\\\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let mapped = try Self.load("coordinator:\n  url: postgresql://dropcut@db/farm\n  password_file: pw", in: dir)
        #expect(mapped.coordinator?.password == "s3cr'et\\")
        #expect(mapped.coordinator?.conninfo.contains("password='s3cr\\'et\\\\'") == true, "\(mapped.coordinator?.conninfo ?? "")")

        #expect(Self.errors("coordinator: postgresql://dropcut:hunter2@db/farm", in: dir).contains("dropcut.yaml:1:"))
        #expect(Self.errors("coordinator: postgresql://dropcut:hunter2@db/farm", in: dir).contains("password"))
        #expect(Self.errors("coordinator:\n  password_file: pw", in: dir).contains("coordinator.url is missing"))
        #expect(Self.errors("coordinator:\n  url: postgresql://d@db/f\n  password_file: pw\n  password_credential: x", in: dir)
            .contains("exclude each other"))
        #expect(Self.errors("coordinator:\n  url: postgresql://d@db/f\n  password_credential: ../etc/shadow", in: dir)
            .contains("not a path"))
        #expect(Self.errors("coordinator:\n  url: postgresql://d@db/f\n  password_file: missing", in: dir).contains("missing"))
        try "one\ntwo\n".write(toFile: dir.file("two"), atomically: true, encoding: .utf8)
        #expect(Self.errors("coordinator:\n  url: postgresql://d@db/f\n  password_file: two", in: dir).contains("not a password"))
        #expect(Self.errors("coordinator:\n  url: postgresql://d@db/f\n  pasword_file: pw", in: dir).contains("pasword_file"))
    }

    /// A systemd credential: read from `$CREDENTIALS_DIRECTORY`, and without it refused
    /// with the unit line that passes it.
    @Test func aPasswordCredentialIsReadFromSystemdsFolder() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("creds"), withIntermediateDirectories: true)
        try "from-systemd\n".write(toFile: dir.file("creds/db-password"), atomically: true, encoding: .utf8)
        let yaml = "coordinator:\n  url: postgresql://d@db/f\n  password_credential: db-password"
        let node = try RecipeNode.parse(yaml: yaml, file: "c.yaml")
        guard case let .mapping(pairs, _) = node, let value = pairs.first?.value else { Issue.record("\(node)"); return }
        var reader = RecipeReader()
        let config = ConfigLoader.decodeCoordinator(value, base: dir.path, &reader, credentials: dir.file("creds"))
        #expect(reader.diagnostics.isEmpty && config?.password == "from-systemd", "\(reader.diagnostics)")
        var without = RecipeReader()
        #expect(ConfigLoader.decodeCoordinator(value, base: dir.path, &without, credentials: nil) == nil)
        #expect(without.diagnostics.map(\.description).joined().contains("LoadCredential=db-password:"), "\(without.diagnostics)")
    }

    /// Random `coordinator:` values, as a URL and as a mapping: taken, or an error at a line
    /// of the config — never a trap, never a password taken from the URL.
    @Test func theConfigKeyOnRandomValues() throws {
        let dir = try TemporaryDirectory()
        try "pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        var random = SplitMix64(state: 37)
        let alphabet = Array("postgresql:/@[]?=&%.-_0123456789abz :'\"\\#")
        var taken = 0
        for n in 0..<1500 {
            var text = Array("postgresql://u@h:5432/d?sslmode=require")
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(text.count + 1))
                let character = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: text.insert(character, at: at)
                case 1: if at < text.count { text[at] = character }
                default: if at < text.count { text.remove(at: at) }
                }
            }
            let url = String(text).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            let yaml = n % 2 == 0 ? "coordinator: \"\(url)\"" : "coordinator:\n  url: \"\(url)\"\n  password_file: pw"
            do {
                let config = try Self.load(yaml, in: dir)
                taken += 1
                #expect(config.coordinator.map { (1...65535).contains($0.port) && ($0.password == nil || $0.password == "pw") } == true, "\(yaml)")
            } catch {
                #expect(error.description.contains("dropcut.yaml:"), "\(yaml): \(error)")
            }
        }
        #expect(taken > 50, "\(taken) taken")
    }
}
