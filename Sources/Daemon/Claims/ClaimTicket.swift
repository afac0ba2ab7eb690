/// What a claim of a clip from the inbox starts from, whoever decided it: the job id the
/// claim gets, and — where a coordinator assigned the clip (`ClaimCoordination.pick`) —
/// its own key for the job and the epoch this claim got, which the job record keeps and
/// every later fence is checked against. Where hosts race for the clip by renaming it
/// (shared-folder claims), a ticket is just a new job id.
package struct ClaimTicket: Sendable, Hashable {
    /// The job id of the claim: its claim folder's name and its state folder's record.
    package var job: String
    /// The coordinator's job the claim is of (kept across takeovers); nil: none.
    package var farmJob: String?
    /// The epoch the claim got from the coordinator; nil: none.
    package var epoch: Int64?
    /// How long the coordinator took to assign the clip (counted in the claim's time,
    /// `DROPCUT_CLAIM_MS`).
    package var decided: Duration

    package init(job: String = JobRecord.newID(), farmJob: String? = nil, epoch: Int64? = nil, decided: Duration = .zero) {
        self.job = job
        self.farmJob = farmJob
        self.epoch = epoch
        self.decided = decided
    }
}

extension JobRecord {
    /// The record of a claim made with `ticket`, of clip `input` in folder `folder`.
    package init(ticket: ClaimTicket, folder: String, input: String, state: State) {
        self.init(id: ticket.job, folder: folder, input: input, sidecars: [], state: state)
        farmJob = ticket.farmJob
        epoch = ticket.epoch
    }
}
