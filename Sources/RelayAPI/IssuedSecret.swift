import RelayCrypto

/// A new master secret, an app's or a group's: shown once, in the answer that issues it;
/// the database keeps only its slow hash, computed off the event loops.
struct IssuedSecret: Sendable {
    let secret: String
    let hash: String

    static func issue(on slowWork: SlowWork) async -> IssuedSecret {
        let secret = SecureRandom.hex(12)
        return IssuedSecret(secret: secret, hash: await slowWork.run { SecretHasher.hash(secret) })
    }
}
