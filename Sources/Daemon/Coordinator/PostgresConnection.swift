import Foundation
internal import CLibpq

/// One connection to PostgreSQL through libpq (the coordinator's only C resource): opened
/// in `init`, closed in `deinit`, used by one thread at a time. Statements take text
/// parameters (`$1`...) and give rows of text, NULL as nil: the coordinator's values are
/// ids, names, numbers and times, and text keeps libpq's binary formats out of Swift.
package final class PostgresConnection {
    /// A statement or connection that failed: where, against what, why, and the SQLSTATE
    /// PostgreSQL gave (`40001` serialization, `23505` unique violation...), if any.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var function: String
        /// The server and database, never the password.
        package var target: String
        package var cause: String
        package var sqlState: String?

        package var description: String {
            "\(function) on \(target): \(cause)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
        }

        /// A unique or primary key was violated: another row has the key.
        package var isUniqueViolation: Bool { sqlState == "23505" }
    }

    private let connection: OpaquePointer
    /// `host:port/database` as the messages say it.
    package let target: String

    /// Connects with libpq's `conninfo` (`host=127.0.0.1 port=5432 dbname=dropcut user=…`,
    /// or a `postgresql://` URI); `target` names it in errors.
    package init(conninfo: String, target: String) throws(Failure) {
        self.target = target
        guard let connection = PQconnectdb(conninfo) else {
            throw Failure(function: "PQconnectdb", target: target, cause: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let cause = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            throw Failure(function: "PQconnectdb", target: target, cause: cause)
        }
        self.connection = connection
    }

    deinit { PQfinish(connection) }

    /// Whether the connection still works (a restarted or unreachable server breaks it).
    package var isOK: Bool { PQstatus(connection) == CONNECTION_OK }

    /// Runs `sql` with `parameters` and returns its rows (none for a command).
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = []) throws(Failure) -> [[String?]] {
        try run(sql, parameters).rows
    }

    /// Runs a command and returns how many rows it changed.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String?] = []) throws(Failure) -> Int {
        try run(sql, parameters).changed
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    private func run(_ sql: String, _ parameters: [String?]) throws(Failure) -> (rows: [[String?]], changed: Int) {
        // libpq copies the parameters before PQexecParams returns: C strings that live
        // for the call are enough.
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        let values = copies.map { UnsafePointer($0) }
        guard let result = values.withUnsafeBufferPointer({ buffer in
            PQexecParams(connection, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }) else {
            throw Failure(function: "PQexecParams", target: target, cause: Self.message(PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK:
            let rowCount = Int(PQntuples(result)), columnCount = Int(PQnfields(result))
            var rows: [[String?]] = []
            rows.reserveCapacity(rowCount)
            for row in 0..<rowCount {
                rows.append((0..<columnCount).map { column in
                    PQgetisnull(result, Int32(row), Int32(column)) == 1 ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
                })
            }
            return (rows, rowCount)
        case PGRES_COMMAND_OK:
            return ([], Int(String(cString: PQcmdTuples(result))) ?? 0)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw Failure(function: Self.verb(of: sql), target: target, cause: Self.message(PQresultErrorMessage(result)), sqlState: state)
        }
    }

    /// The statement's first word, for errors (`INSERT`, `SELECT`...).
    static func verb(of sql: String) -> String {
        String(sql.drop { $0.isWhitespace }.prefix { !$0.isWhitespace }).uppercased()
    }

    static func message(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "unknown error"
    }
}
