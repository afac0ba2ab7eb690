import TestSupport
@testable import DropcutDaemon

extension JobRecord {
    /// This record as a file holding it in `state` is read back (`StoredJSON`).
    mutating func store(in state: State) { self = try! StoredJSON.replacing("state", with: state.rawValue, in: self) }
}
