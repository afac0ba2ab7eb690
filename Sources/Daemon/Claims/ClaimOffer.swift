/// One piece of work a coordinator that assigns claims (`ClaimCoordination.pick`) gives
/// a host with free workers.
package enum ClaimOffer: Sendable {
    /// A settled clip of the host's own listing, assigned to it: claim it with `ticket`.
    case claim(SettledClip, ClaimTicket)
    /// A claim whose lease ran out, granted to this host to take over.
    case takeOver(TakeoverCandidate)
}
