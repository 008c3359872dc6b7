import RelayCrypto

/// A new master secret, an app's or a group's: shown once, in the answer that issues it;
/// the database keeps only its salted hash.
struct IssuedSecret: Sendable {
    let secret: String
    let hash: String

    static func issue() -> IssuedSecret {
        let secret = SecureRandom.hex(12)
        return IssuedSecret(secret: secret, hash: SecretHasher.hash(secret))
    }
}
