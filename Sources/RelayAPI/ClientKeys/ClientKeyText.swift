import RelayCrypto

/// A client key as an app ships it: `ck_<key id>_<secret>`. The key id (16 hex digits,
/// public: the admin listing shows it) finds the key's row; the secret (32 hex digits,
/// 128 random bits) is checked against the row's hash.
struct ClientKeyText: Sendable, Equatable {
    static let keyIDLength = 16
    static let secretLength = 32

    var keyID: String
    var secret: String

    var text: String { "ck_\(keyID)_\(secret)" }

    /// Nil for anything that cannot be a client key.
    init?(parsing raw: String) {
        let parts = raw.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ck",
              Self.isHex(parts[1], count: Self.keyIDLength), Self.isHex(parts[2], count: Self.secretLength) else { return nil }
        keyID = String(parts[1])
        secret = String(parts[2])
    }

    private init(keyID: String, secret: String) {
        self.keyID = keyID
        self.secret = secret
    }

    /// A fresh key and the hash of its secret.
    static func issue() -> (key: ClientKeyText, hash: String) {
        let secret = IssuedSecret.issue(bytes: secretLength / 2)
        return (ClientKeyText(keyID: SecureRandom.hex(keyIDLength / 2), secret: secret.secret), secret.hash)
    }

    /// Whether `id` is a well-formed key id (what `DELETE …/client-keys/{id}` names).
    static func isKeyID(_ id: Substring) -> Bool { isHex(id, count: keyIDLength) }

    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
