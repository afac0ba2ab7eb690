/// A copy of one of this host's job records, kept with its claim by the coordination
/// (`ClaimCoordination.ownCopy`), and where it was kept — as the journal says it when a
/// job is resumed from it: "the copy in its claim's lease" on a share, "the copy the
/// coordinator holds" where PostgreSQL decides.
package struct RecordCopy: Sendable {
    package var record: JobRecord
    package var source: String
}
