import Foundation
import RelayCrypto

/// The dashboard's login session as a signed cookie: `v1.<expiry>.<nonce>.<mac>`, the MAC an
/// HMAC-SHA256 under a key derived from the admin token, so changing the admin token ends
/// every session. The session is also a row in PostgreSQL (`DashboardSessionStore`) until
/// logout, so every API node accepts it, a restart keeps it, and a logout ends it
/// everywhere. The CSRF token of a session is derived from its nonce the same way.
struct DashboardSession: Sendable, Equatable {
    static let cookieName = "pushrelay_session"
    static let lifetime: TimeInterval = 12 * 3600

    let expiresAt: Int64
    let nonce: String

    /// The signing key for sessions of this admin token.
    struct Key: Sendable {
        fileprivate let bytes: [UInt8]

        init(adminToken: String) {
            bytes = Digest.sha256(Array("pushrelay-dashboard-session:\(adminToken)".utf8))
        }
    }

    /// A fresh session, valid for `lifetime` from `now`.
    static func issue(now: Date, nonce: String = SecureRandom.hex(16)) -> DashboardSession {
        DashboardSession(expiresAt: Int64(now.timeIntervalSince1970 + lifetime), nonce: nonce)
    }

    /// The cookie's value.
    func cookieValue(_ key: Key) -> String {
        "v1.\(expiresAt).\(nonce).\(Self.hex(HMAC.sha256(key: key.bytes, Array("session|\(expiresAt)|\(nonce)".utf8))))"
    }

    /// The session a cookie value carries, if its MAC is right and it has not expired.
    static func verify(_ value: String, key: Key, now: Date) -> DashboardSession? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == "v1", let expiresAt = Int64(parts[1]), !parts[2].isEmpty,
              parts[2].utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else { return nil }
        let session = DashboardSession(expiresAt: expiresAt, nonce: parts[2])
        guard Digest.constantTimeEqual(Array(session.cookieValue(key).utf8), Array(value.utf8)),
              Double(expiresAt) > now.timeIntervalSince1970 else { return nil }
        return session
    }

    /// The token state-changing forms of this session must carry.
    func csrfToken(_ key: Key) -> String {
        Self.hex(HMAC.sha256(key: key.bytes, Array("csrf|\(nonce)".utf8)))
    }

    func checkCSRF(_ presented: String?, key: Key) -> Bool {
        guard let presented else { return false }
        return Digest.constantTimeEqual(Array(presented.utf8), Array(csrfToken(key).utf8))
    }

    /// The session cookie of a request's `Cookie` header, if any.
    static func cookie(in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix(cookieName + "=") { return String(pair.dropFirst(cookieName.count + 1)) }
        }
        return nil
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// HMAC (RFC 2104) over `Digest.sha256`.
enum HMAC {
    static func sha256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? Digest.sha256(key) : key
        block += Array(repeating: 0, count: 64 - block.count)
        let inner = Digest.sha256(block.map { $0 ^ 0x36 } + message)
        return Digest.sha256(block.map { $0 ^ 0x5c } + inner)
    }
}

extension DashboardSession {
    /// The session's row key in `DashboardSessionStore`: the SHA-256 of its nonce, so the
    /// table alone makes no cookie.
    var id: String { Self.hex(Digest.sha256(Array("session-id|\(nonce)".utf8))) }
}
