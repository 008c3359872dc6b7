import Foundation

/// The `user:password` pair of an HTTP Basic `Authorization` header.
struct BasicCredentials: Sendable, Equatable {
    var user: String
    var password: String

    /// Nil when the header is absent, not Basic, not base64, or has no colon, or when either
    /// half holds a control character: PBKDF2 pads its HMAC key with NULs, so `secret\0`
    /// would otherwise match `secret`.
    init?(authorization: String?) {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let decoded = String(data: data, encoding: .utf8),
              let colon = decoded.firstIndex(of: ":"),
              !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        user = String(decoded[..<colon])
        password = String(decoded[decoded.index(after: colon)...])
    }

    init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}
