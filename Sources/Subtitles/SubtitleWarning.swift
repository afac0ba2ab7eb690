/// Something a subtitle file holds that was skipped or changed as it was read — a cue
/// setting with a value the spec does not know, a block that is not a cue, a cue that ends
/// where it starts — where the file as a whole is still read. Said once per kind: the first
/// line it happened on, and how many more lines had the same.
public struct SubtitleWarning: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    /// The first line (counting from 1; 0: the file as a whole).
    public var line: Int
    public var reason: String
    /// How many more lines of the file had a warning of the same kind.
    public var more: Int

    public init(path: String, line: Int, reason: String, more: Int = 0) {
        self.path = path
        self.line = line
        self.reason = reason
        self.more = more
    }

    public var description: String {
        let place = line > 0 ? "\(path):\(line): " : "\(path): "
        return place + reason + (more > 0 ? " (and \(more) more like it)" : "")
    }
}

/// The warnings of one file as it is read, kept once per kind.
struct SubtitleWarnings {
    /// What was skipped, by kind: each kind is said once.
    /// Kinds are fine enough that one message stands for all of its kind: a bad time
    /// by what is wrong with it, a dropped cue setting by its name and what is wrong.
    enum Kind: Hashable {
        case encoding, nul, notACue, runOn, markup, backwards
        case timing(SubtitleTimestamp.Reason.Kind)
        case setting(name: String, problem: String)
    }

    let path: String
    private(set) var list: [SubtitleWarning] = []
    private var index: [Kind: Int] = [:]

    init(path: String) { self.path = path }

    /// Notes `reason` at `line`; a kind already noted only counts one more.
    mutating func add(_ kind: Kind, line: Int, _ reason: @autoclosure () -> String) {
        if let at = index[kind] {
            list[at].more += 1
        } else {
            index[kind] = list.count
            list.append(SubtitleWarning(path: path, line: line, reason: reason()))
        }
    }
}
