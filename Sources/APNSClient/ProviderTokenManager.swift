import Foundation
import RelayCore
import Synchronization

/// The provider token (JWT, ES256) of one (team, key), shared by every connection.
///
/// APNs wants a token refreshed at least hourly (else `ExpiredProviderToken`) and at most
/// every 20 minutes (else `TooManyProviderTokenUpdates`): the token is rotated once it is
/// `rotationAge` old, and a rejection only makes a new one when the current one is at least
/// `minimumAge` old.
public final class ProviderTokenManager: Sendable {
    public let keyID: String
    public let teamID: String
    public let rotationAge: TimeInterval
    public let minimumAge: TimeInterval
    private let signer: ES256Signer
    private let clock: any APNSClock
    private let current: Mutex<(jwt: String, issuedAt: Date)?>

    /// - Parameters:
    ///   - keyPEM: the `.p8` key, PEM.
    ///   - keyID: the 10-character key id, the JWT `kid`.
    ///   - teamID: the team id, the JWT `iss`.
    ///   - clock: the time source for `iat` and rotation.
    public init(
        keyPEM: String, keyID: String, teamID: String, clock: any APNSClock = SystemClock(),
        rotationAge: TimeInterval = 50 * 60, minimumAge: TimeInterval = 20 * 60
    ) throws {
        self.signer = try ES256Signer(pem: keyPEM)
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
        self.rotationAge = rotationAge
        self.minimumAge = minimumAge
        self.current = Mutex(nil)
        _ = try token()  // a key that cannot sign fails here, not on the first send
    }

    /// The token to send now: the current one, or a new one when it is `rotationAge` old.
    public func token() throws -> String {
        let now = clock.now
        return try current.withLock { current in
            if let current, now.timeIntervalSince(current.issuedAt) < rotationAge { return current.jwt }
            let fresh = try makeToken(issuedAt: now)
            current = (fresh, now)
            return fresh
        }
    }

    /// APNs answered `ExpiredProviderToken` to `rejected`.
    ///
    /// Makes a new token unless the current one is younger than `minimumAge` (APNs would
    /// answer `TooManyProviderTokenUpdates`) or another connection already replaced it.
    /// - Returns: true when the current token differs from `rejected`, so a retry can help.
    @discardableResult
    public func tokenExpired(_ rejected: String) throws -> Bool {
        let now = clock.now
        return try current.withLock { current in
            if let current, current.jwt != rejected { return true }
            if let current, now.timeIntervalSince(current.issuedAt) < minimumAge { return false }
            current = (try makeToken(issuedAt: now), now)
            return true
        }
    }

    private func makeToken(issuedAt: Date) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = try encoder.encode(TokenHeader(kid: keyID))
        let claims = try encoder.encode(TokenClaims(iss: teamID, iat: Int(issuedAt.timeIntervalSince1970)))
        let signingInput = Base64URL.encode(Array(header)) + "." + Base64URL.encode(Array(claims))
        let signature = try signer.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The JWT's header: ES256, signed with the key `kid`.
    private struct TokenHeader: Encodable {
        var alg = "ES256"
        var kid: String
    }

    /// The JWT's claims: the team and when the token was issued (seconds since 1970).
    private struct TokenClaims: Encodable {
        var iss: String
        var iat: Int
    }
}
