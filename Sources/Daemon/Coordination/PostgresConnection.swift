import Foundation
internal import CDropcutLibpq

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
        /// The server's own one-line message (libpq's primary message, without the
        /// `ERROR:` prefix, the `LINE` and caret lines): nil when the server did not answer.
        package var serverMessage: String?

        package var description: String {
            "\(function) on \(target): \(cause)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
        }

        /// A unique or primary key was violated: another row has the key.
        package var isUniqueViolation: Bool { sqlState == "23505" }

        /// The server answered with an error (it has a SQLSTATE): permission denied, a
        /// missing table, a full disk... — as against a server that did not answer at all.
        package var isServerError: Bool { sqlState != nil }

        /// A table or column the statement names does not exist (42P01 undefined_table,
        /// 42703 undefined_column): the schema is not what the migrations made.
        package var isMissingSchema: Bool { sqlState == "42P01" || sqlState == "42703" }
    }

    /// A message the server sent beside a result (`WARNING`, `NOTICE`...): its severity,
    /// SQLSTATE and text. libpq would print it on stderr; the connection hands it over.
    package struct Notice: Sendable, Equatable {
        package var severity: String
        package var sqlState: String?
        package var message: String
    }

    private let connection: OpaquePointer
    /// `host:port/database` as the messages say it.
    package let target: String
    /// Where the server's notices go; kept as long as the connection (libpq holds a
    /// pointer to it).
    private let noticeBox: NoticeBox

    /// The receiver's closure, boxed for libpq's `void *` argument.
    private final class NoticeBox {
        let receive: @Sendable (Notice) -> Void
        init(_ receive: @escaping @Sendable (Notice) -> Void) { self.receive = receive }
    }

    /// Connects with libpq's `conninfo` (`host=127.0.0.1 port=5432 dbname=dropcut user=…`,
    /// or a `postgresql://` URI); `target` names it in errors. The server's notices and
    /// warnings go to `notices` (by default nowhere): never to stderr, where libpq's own
    /// receiver prints them outside the journal's structure.
    package init(conninfo: String, target: String, notices: @escaping @Sendable (Notice) -> Void = { _ in }) throws(Failure) {
        self.target = target
        noticeBox = NoticeBox(notices)
        guard let connection = PQconnectdb(conninfo) else {
            throw Failure(function: "PQconnectdb", target: target, cause: "libpq could not allocate a connection")
        }
        // Before anything can warn (the connection is made; no statement ran yet).
        PQsetNoticeReceiver(connection, { argument, result in
            guard let argument, let result else { return }
            let box = Unmanaged<NoticeBox>.fromOpaque(argument).takeUnretainedValue()
            let field = { (code: UInt8) in PQresultErrorField(result, Int32(code)).map { String(cString: $0) } }
            // "V" is the severity untranslated (whatever the server's lc_messages).
            box.receive(Notice(severity: field(UInt8(ascii: "V")) ?? field(UInt8(ascii: "S")) ?? "NOTICE", sqlState: field(UInt8(ascii: "C")),
                               message: field(UInt8(ascii: "M")) ?? PostgresConnection.message(PQresultErrorMessage(result))))
        }, Unmanaged.passUnretained(noticeBox).toOpaque())
        guard PQstatus(connection) == CONNECTION_OK, PQsetnonblocking(connection, 1) == 0 else {
            let cause = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            throw Failure(function: "PQconnectdb", target: target, cause: cause)
        }
        self.connection = connection
    }

    deinit { PQfinish(connection) }

    /// Whether the connection still works (a restarted or unreachable server, or a
    /// statement that timed out, breaks it).
    package var isOK: Bool { !broken && PQstatus(connection) == CONNECTION_OK }

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

    /// How long one statement may take, sending to answer: a server that stops answering
    /// (paused, its host gone) fails the statement instead of hanging the caller, and the
    /// connection is closed (`isOK` false): a later statement needs a new one.
    package var timeout: Duration = .seconds(10)
    private var broken = false

    private func run(_ sql: String, _ parameters: [String?]) throws(Failure) -> (rows: [[String?]], changed: Int) {
        guard !broken else { throw Failure(function: Self.verb(of: sql), target: target, cause: "the connection was closed after an earlier failure") }
        // libpq copies the parameters before PQsendQueryParams returns: C strings that live
        // for the call are enough.
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        let values = copies.map { UnsafePointer($0) }
        let sent = values.withUnsafeBufferPointer { buffer in
            PQsendQueryParams(connection, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        guard sent == 1 else { throw fail(sql, Self.message(PQerrorMessage(connection))) }
        let deadline = ContinuousClock.now + timeout
        // Everything sent, then the answer read as it comes, each wait bounded by the deadline.
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { break }
            if flushed < 0 { throw fail(sql, Self.message(PQerrorMessage(connection))) }
            try wait(for: Int16(POLLOUT), until: deadline, sql)
        }
        while PQisBusy(connection) == 1 {
            try wait(for: Int16(POLLIN), until: deadline, sql)
            guard PQconsumeInput(connection) == 1 else { throw fail(sql, Self.message(PQerrorMessage(connection))) }
        }
        // One statement, one result (then nil); a later failure in the list wins.
        var outcome: Result<(rows: [[String?]], changed: Int), Failure>?
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            if case .failure? = outcome { continue }
            outcome = Self.read(result, sql: sql, target: target)
            while PQisBusy(connection) == 1 {
                try wait(for: Int16(POLLIN), until: deadline, sql)
                guard PQconsumeInput(connection) == 1 else { throw fail(sql, Self.message(PQerrorMessage(connection))) }
            }
        }
        guard let outcome else { throw fail(sql, "the server sent no result") }
        return try outcome.get()
    }

    /// Waits until the socket is ready for `events`, or throws when `deadline` passes (and
    /// closes the connection: its state mid-statement is unknown).
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant, _ sql: String) throws(Failure) {
        let socket = PQsocket(connection)
        guard socket >= 0 else { throw fail(sql, "the connection has no socket") }
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw fail(sql, "the server did not answer within \(timeout) (paused, overloaded or unreachable)")
            }
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let milliseconds = Int32(min(Double(Int32.max), max(1, left.seconds * 1000)))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw fail(sql, "poll: \(String(cString: strerror(errno)))") }
        }
    }

    /// A failure that leaves the connection unusable: closed for good.
    private func fail(_ sql: String, _ cause: String) -> Failure {
        broken = true
        return Failure(function: Self.verb(of: sql), target: target, cause: cause)
    }

    private static func read(_ result: OpaquePointer, sql: String, target: String) -> Result<(rows: [[String?]], changed: Int), Failure> {
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
            return .success((rows, rowCount))
        case PGRES_COMMAND_OK:
            return .success(([], Int(String(cString: PQcmdTuples(result))) ?? 0))
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            return .failure(Failure(function: verb(of: sql), target: target, cause: message(PQresultErrorMessage(result)), sqlState: state,
                                    serverMessage: primary))
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
