import Foundation

/// The name of a claim folder in `<inbox>/.dropcut/claimed/`: the id of the job that holds
/// it, and — once the holder has passed a fence (see `LeaseKeeper.fence`) — how many
/// fences: `20261123T114124Z-8c80351dd074` while it renders, then
/// `20261123T114124Z-8c80351dd074.committing-1`, `-2`... before each irreversible step.
///
/// Job ids are unique across hosts and never reused, so the name says who holds the claim:
/// a taker renames the folder to its own new job id, and from then on no name the old
/// holder knows exists any more — its renewals and fences fail, by name.
package struct ClaimName: Sendable, Hashable, CustomStringConvertible {
    /// The holder's job id.
    package var job: String
    /// 0 while working; n after the n-th fence.
    package var fences: Int

    /// At most this many fences a job passes (each retry of a commit passes one more).
    static let maximumFences = 1_000_000
    static let committing = ".committing-"

    /// The name of job `job`'s claim after `fences` fences.
    package init(job: String, fences: Int = 0) {
        self.job = job
        self.fences = fences
    }

    /// Parses an entry of the claimed folder; nil for names the protocol never makes
    /// (hidden names, empty ids, a fence count out of range).
    package init?(_ name: String) {
        guard !name.hasPrefix("."), !name.contains("/"), name.utf8.count <= Int(NAME_MAX) else { return nil }
        if let range = name.range(of: Self.committing) {
            let id = String(name[..<range.lowerBound])
            let digits = name[range.upperBound...]
            guard !id.isEmpty, !id.contains("."), !digits.isEmpty, digits.utf8.count <= 7,
                  digits.allSatisfy(\.isASCII), let n = Int(digits), (1...Self.maximumFences).contains(n) else { return nil }
            self.init(job: id, fences: n)
        } else {
            guard !name.isEmpty, !name.contains(".") else { return nil }
            self.init(job: name, fences: 0)
        }
    }

    /// The folder's name.
    package var description: String { fences == 0 ? job : job + Self.committing + String(fences) }

    /// The name after one more fence.
    package var fenced: ClaimName { ClaimName(job: job, fences: fences + 1) }

    /// Whether the holder had passed a fence: it may have published its output already.
    package var isCommitting: Bool { fences > 0 }

    /// The entries of `claimedDirectory` that belong to job `id` (normally one).
    static func entries(of id: String, in claimedDirectory: String) -> [ClaimName] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: claimedDirectory)) ?? []
        return names.compactMap(ClaimName.init).filter { $0.job == id }.sorted { $0.fences < $1.fences }
    }
}
