import Testing
@testable import DropcutDaemon

/// `SchemaVerdict.judge`, exhaustively over what can be missing: every subset of the
/// expected tables present, each present table with all its columns or one missing, and
/// the record empty, partial, complete.
@Suite struct SchemaVerdictTests {
    static let expected: [String: Set<String>] = [
        "dropcut_jobs": ["id", "state", "claim"],
        "dropcut_output_names": ["outbox", "name"],
    ]

    /// Every catalog: each table absent, present whole, or present without one of its columns.
    static func catalogs() -> [[String: Set<String>]] {
        var all: [[String: Set<String>]] = [[:]]
        for (table, columns) in expected {
            let variants: [Set<String>?] = [nil, columns] + columns.sorted().map { columns.subtracting([$0]) }
            all = all.flatMap { catalog in
                variants.map { variant in
                    var next = catalog
                    next[table] = variant
                    return next
                }
            }
        }
        return all
    }

    @Test func everyCatalogAndRecordIsJudgedAsTheRulesSay() {
        let records: [Set<Int>] = [[], [1], [1, 2]]
        var seen: [String: Int] = [:]
        for applied in records {
            for catalog in Self.catalogs() {
                let verdict = SchemaVerdict.judge(applied: applied, latest: 2, tables: catalog, expected: Self.expected)
                let whole = Self.expected.allSatisfy { catalog[$0.key] == $0.value }
                let expected: String
                if applied.isEmpty {
                    expected = catalog.isEmpty ? "migrate" : "refuse"
                } else if catalog["dropcut_jobs"] == nil {
                    expected = "recreate"
                } else if applied != [1, 2] {
                    expected = "migrate"
                } else {
                    expected = whole ? "intact" : "refuse"
                }
                let got: String
                switch verdict {
                case .intact: got = "intact"
                case .migrate: got = "migrate"
                case let .recreate(reason):
                    got = "recreate"
                    #expect(reason.contains("dropcut_jobs") && reason.contains("version"), "\(reason)")
                case let .refuse(reason):
                    got = "refuse"
                    // The reason names what is wrong.
                    for (table, columns) in Self.expected {
                        guard let present = catalog[table] else { continue }
                        for column in columns.subtracting(present) where !applied.isEmpty {
                            #expect(reason.contains(column), "\(reason) does not name \(table).\(column)")
                        }
                    }
                }
                #expect(got == expected, "applied \(applied.sorted()), catalog \(catalog): \(verdict)")
                seen[got, default: 0] += 1
            }
        }
        // Each verdict was reached: the enumeration covers the rules.
        #expect(Set(seen.keys) == ["intact", "migrate", "recreate", "refuse"], "\(seen)")
    }

    @Test func extraColumnsAndTablesDoNotMatter() {
        var catalog = Self.expected
        catalog["dropcut_jobs"]?.insert("added_by_hand")
        catalog["something_else"] = ["x"]
        #expect(SchemaVerdict.judge(applied: [1, 2], latest: 2, tables: catalog, expected: Self.expected) == .intact)
    }

    @Test func theRealExpectedSchemaIsJudgedIntactAndItsLossRecreated() {
        let real = CoordinatorSchema.expected
        let all = Set(CoordinatorSchema.migrations.map(\.version))
        #expect(SchemaVerdict.judge(applied: all, latest: CoordinatorSchema.latest, tables: real, expected: real) == .intact)
        var dropped = real
        dropped["dropcut_jobs"] = nil
        guard case .recreate = SchemaVerdict.judge(applied: all, latest: CoordinatorSchema.latest, tables: dropped, expected: real) else {
            Issue.record("a dropped dropcut_jobs is not made again")
            return
        }
    }
}
