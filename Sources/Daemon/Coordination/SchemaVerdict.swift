/// What the coordinator's schema is, judged from what the database's catalog holds and
/// what `dropcut_schema` says was applied — pure logic, apart from the queries that feed
/// it (`CoordinatorSchema.migrate`). `dropcut_schema` alone is not trusted: a table can be
/// dropped (or a column) behind its back, and a daemon that believed the record would
/// report ready while every statement fails.
package enum SchemaVerdict: Equatable, Sendable {
    /// Every table and column the migrations make is there: nothing to do.
    case intact
    /// Migrations are missing from the record (a fresh database, or an older dropcut's):
    /// apply them, then judge again.
    case migrate
    /// The record says migrated, but `dropcut_jobs` is gone — and its rows with it, so
    /// nothing is lost by making the schema again: dropcut's other tables are dropped (the
    /// output names reserved for jobs that no longer exist), the record is emptied and
    /// every migration applied again. The reason says what was missing.
    case recreate(String)
    /// Damaged in a way that making it again would lose rows (a column missing from a
    /// table that still has its rows, another table missing beside `dropcut_jobs`), or
    /// tables without a record: refused, with what is wrong and what to do.
    case refuse(String)

    /// The table whose loss is repaired by making the schema again.
    package static let jobsTable = "dropcut_jobs"

    /// Judges `tables` (dropcut's tables present, each with its columns) against
    /// `expected` (what every migration up to `latest` makes), given the versions
    /// `applied` by the record.
    package static func judge(applied: Set<Int>, latest: Int, tables: [String: Set<String>],
                              expected: [String: Set<String>]) -> SchemaVerdict {
        let present = expected.keys.filter { tables[$0] != nil }.sorted()
        if applied.isEmpty {
            guard present.isEmpty else {
                return .refuse("dropcut's tables (\(present.joined(separator: ", "))) exist but dropcut_schema records no migration: "
                               + "restore dropcut_schema, or drop those tables to start an empty farm")
            }
            return .migrate
        }
        if tables[jobsTable] == nil {
            let missing = expected.keys.filter { tables[$0] == nil }.sorted()
            return .recreate("dropcut_schema records version \(applied.max() ?? 0) but \(missing.joined(separator: ", ")) "
                             + (missing.count == 1 ? "does" : "do") + " not exist")
        }
        if !Set(1...max(1, latest)).isSubset(of: applied) { return .migrate }
        var problems: [String] = []
        for table in expected.keys.sorted() {
            guard let columns = tables[table] else {
                problems.append("table \(table) does not exist")
                continue
            }
            let missing = expected[table, default: []].subtracting(columns).sorted()
            if !missing.isEmpty { problems.append("\(table) lacks column" + (missing.count == 1 ? " " : "s ") + missing.joined(separator: ", ")) }
        }
        if problems.isEmpty { return .intact }
        return .refuse("the schema is not what dropcut's migrations made (version \(applied.max() ?? 0)): "
                       + problems.joined(separator: "; ")
                       + "; repair it by hand (restore from a backup), or drop dropcut's tables and dropcut_schema to start an empty farm")
    }
}
