import Foundation

/// Where a farm's decisions are made: the PostgreSQL server of the `coordinator:` key
/// (`PostgresCoordinator`, `DatabaseLeases`): the address as the key gives it, checked,
/// and libpq's connection string made from it.
///
/// The address is a `postgresql://` URL without a password: a password goes in a file
/// (`password_file`, or a systemd credential), never in the config, which is often
/// world-readable and copied into tickets.
package struct CoordinatorConfig: Sendable, Hashable {
    /// How libpq uses TLS (libpq's `sslmode`): `verify-full` checks the server's
    /// certificate and name; `prefer`, libpq's default, falls back to plain text.
    package enum SSLMode: String, Sendable, Hashable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// A host name, an IPv4 address, or an IPv6 address (without brackets).
    package var host: String
    package var port: Int
    package var database: String
    package var user: String
    package var sslMode: SSLMode?
    /// Read from `password_file` or a credential; nil: none (trust, peer or a client
    /// certificate).
    package var password: String?

    /// Why an address is not one dropcut can use.
    package struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// The longest a PostgreSQL identifier (a database or role name) is: NAMEDATALEN − 1.
    package static let maximumIdentifierBytes = 63

    /// Parses `postgresql://user@host:port/database?sslmode=…` (`postgres://` too; the
    /// port defaults to 5432). Refused, with the reason: another scheme, a password in the
    /// URL, no user, host or database, a port outside 1–65535, percent-escapes, a query
    /// parameter other than `sslmode`, or more than one of it.
    package static func parse(url text: String) throws(Invalid) -> CoordinatorConfig {
        let schemes = ["postgresql://", "postgres://"]
        guard let scheme = schemes.first(where: { text.hasPrefix($0) }) else {
            throw Invalid(reason: "must start with postgresql:// (got '\(Self.shown(text))')")
        }
        guard text.utf8.count <= 1024 else { throw Invalid(reason: "is longer than 1024 bytes") }
        guard text.unicodeScalars.allSatisfy({ (0x21...0x7e).contains($0.value) }) else {
            throw Invalid(reason: "must be printable ASCII without spaces")
        }
        guard !text.contains("%") else {
            throw Invalid(reason: "must not use percent-escapes: dropcut takes the names as they are")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard !rest.contains("#") else { throw Invalid(reason: "must not have a fragment (#)") }
        guard let slash = rest.firstIndex(of: "/") else {
            throw Invalid(reason: "names no database: add /dbname after the host")
        }
        let authority = rest[..<slash], database = rest[rest.index(after: slash)...]
        guard let at = authority.lastIndex(of: "@") else {
            throw Invalid(reason: "names no user: write postgresql://user@host/dbname")
        }
        let user = authority[..<at], hostPort = authority[authority.index(after: at)...]
        if user.contains(":") {
            throw Invalid(reason: "holds a password: the password does not go in the config; put it in coordinator.password_file or a systemd credential (coordinator.password_credential)")
        }
        try checkIdentifier(user, "user")
        try checkIdentifier(database, "database name")
        let (host, port) = try hostAndPort(hostPort)
        var config = CoordinatorConfig(host: host, port: port, database: String(database), user: String(user))
        if !query.isEmpty {
            for parameter in query.split(separator: "&", omittingEmptySubsequences: false) {
                let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2, pair[0] == "sslmode" else {
                    throw Invalid(reason: "takes only the sslmode parameter (got '\(Self.shown(String(parameter)))')")
                }
                guard config.sslMode == nil else { throw Invalid(reason: "gives sslmode twice") }
                guard let mode = SSLMode(rawValue: String(pair[1])) else {
                    throw Invalid(reason: "sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(Self.shown(String(pair[1])))')")
                }
                config.sslMode = mode
            }
        }
        return config
    }

    /// A user or database name: 1 to 63 bytes of letters, digits, `_`, `-` and `.`.
    private static func checkIdentifier(_ name: Substring, _ what: String) throws(Invalid) {
        guard !name.isEmpty else { throw Invalid(reason: "has an empty \(what)") }
        guard name.utf8.count <= maximumIdentifierBytes else {
            throw Invalid(reason: "has a \(what) longer than \(maximumIdentifierBytes) bytes")
        }
        guard name.unicodeScalars.allSatisfy({ isLetterOrDigit($0) || "_-.".unicodeScalars.contains($0) }) else {
            throw Invalid(reason: "has a \(what) with characters other than letters, digits, _, - and . ('\(Self.shown(String(name)))')")
        }
    }

    /// An ASCII letter or digit (names and hosts take these and a few marks).
    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func hostAndPort(_ text: Substring) throws(Invalid) -> (String, Int) {
        var host: Substring, port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw Invalid(reason: "has an IPv6 address without its closing ]") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Invalid(reason: "has something other than :port after the IPv6 address") }
                port = after.dropFirst()
            }
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(host), &address) == 1 else {
                throw Invalid(reason: "has '\(Self.shown(String(host)))' in brackets, which is not an IPv6 address")
            }
        } else {
            if let colon = text.firstIndex(of: ":") {
                host = text[..<colon]
                port = text[text.index(after: colon)...]
            } else {
                host = text
            }
            guard !host.isEmpty else { throw Invalid(reason: "names no host") }
            guard host.utf8.count <= 253, host.unicodeScalars.allSatisfy({ isLetterOrDigit($0) || "-.".unicodeScalars.contains($0) }) else {
                throw Invalid(reason: "has a host that is not a name or an address ('\(Self.shown(String(host)))')")
            }
        }
        guard let port else { return (String(host), 5432) }
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
              (1...65535).contains(number) else {
            throw Invalid(reason: "has a port that is not a number from 1 to 65535 ('\(Self.shown(String(port)))')")
        }
        return (String(host), number)
    }

    /// At most 80 characters of `text`, for a message.
    private static func shown(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(80)) + "…"
    }

    /// libpq's connection string: each keyword's value in single quotes, `'` and `\`
    /// escaped, so no value can add a keyword of its own. `connect_timeout` bounds a
    /// connection to a server that does not answer; `application_name` shows dropcut in
    /// `pg_stat_activity`.
    package var conninfo: String {
        var pairs: [(String, String)] = [("host", host), ("port", String(port)), ("dbname", database), ("user", user)]
        if let password { pairs.append(("password", password)) }
        if let sslMode { pairs.append(("sslmode", sslMode.rawValue)) }
        pairs.append(("connect_timeout", "10"))
        pairs.append(("application_name", "dropcut"))
        return pairs.map { key, value in
            "\(key)='" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }.joined(separator: " ")
    }

    /// The server and database as messages name them: never the password.
    package var target: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)/\(database)"
    }

    /// A password as a file holds it: the file's text without its trailing newline; nil
    /// when it is empty, longer than 1024 bytes, or holds a NUL or another line.
    package static func password(fromFile text: String) -> String? {
        var value = Substring(text)
        while value.last?.isNewline == true { value = value.dropLast() }
        guard !value.isEmpty, value.utf8.count <= 1024, !value.contains("\0"), !value.contains(where: \.isNewline) else { return nil }
        return String(value)
    }
}
