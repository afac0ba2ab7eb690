import Foundation
import Testing
import TestSupport
@testable import Daemon

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
}
