/// A claim a renewal found lost — taken over by another host, or refused by the
/// coordinator — whichever decides the claims (`ClaimCoordination.renew`). Its render is
/// cancelled already; the scheduler gives up a job that was waiting for a retry.
package struct LostClaim: Sendable, Hashable {
    /// The job whose claim is lost.
    package let job: String
    /// What was found, for the log.
    package let reason: String

    package init(job: String, reason: String) {
        self.job = job
        self.reason = reason
    }
}
