import Foundation

/// A value as a file holding it with one field changed would be read back: how tests write
/// what another version, a crash or a forger may leave on disk — a job record in a state
/// the code itself only reaches through its state machine. Encoded and decoded with the
/// default strategies, so every other field comes back exactly as it was.
public enum StoredJSON {
    public static func replacing<T: Codable>(_ key: String, with newValue: String, in value: T) throws -> T {
        guard var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any] else {
            throw CocoaError(.coderInvalidValue)
        }
        object[key] = newValue
        return try JSONDecoder().decode(T.self, from: JSONSerialization.data(withJSONObject: object))
    }
}
