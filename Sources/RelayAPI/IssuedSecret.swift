import RelayCore
import RelayCrypto

/// A new secret (an app's or a group's master secret, a client key's or a device's secret):
/// shown once, in the answer that issues it; the database keeps only its salted hash.
struct IssuedSecret: Sendable {
    let secret: String
    let hash: String

    /// - Parameter bytes: random bytes, shown as twice as many hex digits.
    static func issue(bytes: Int = 12) -> IssuedSecret {
        let secret = SecureRandom.hex(bytes)
        return IssuedSecret(secret: secret, hash: SecretHasher.hash(secret))
    }

    /// The answer that shows it: the fields of what it was issued for, and the secret under `key`.
    func answer<Record: Encodable>(_ record: Record, key: String) -> Shown<Record> {
        Shown(record: record, key: key, secret: secret)
    }

    struct Shown<Record: Encodable>: Encodable {
        var record: Record
        var key: String
        var secret: String

        func encode(to encoder: any Encoder) throws {
            try record.encode(to: encoder)
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(secret, forKey: AnswerKey(key))
        }
    }
}
