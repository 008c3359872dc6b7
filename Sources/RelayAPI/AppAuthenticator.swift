import Foundation
import PostgresStore
import RelayCore
import RelayCrypto
import Synchronization

/// The app a `/v3` request acts for, after its Basic credentials were checked.
public struct AuthenticatedApp: Sendable, Equatable {
    public var id: Int64
    public var appKey: String
    /// The app's own requests per minute; nil takes the relay's default.
    public var rateLimitPerMinute: Int?
}

/// Checks `Basic app_key:master_secret` against the stored hash (`SecretHasher`).
///
/// Every request reads the app's current hash (one indexed lookup), so a rotated or deleted
/// secret stops working at once on every node. What is cached is only the outcome of the
/// check for that exact stored hash and presented secret, for `cacheTTL`: it spares the
/// slow hash of secrets stored before the relay moved to salted SHA-256.
///
/// An unknown app key costs the same hash as a wrong secret (against a fixed hash made the
/// same way), so the time of a refusal does not tell which app keys exist.
final class AppAuthenticator: Sendable {
    private struct Verified {
        var appID: Int64
        var storedHash: String
        var presentedDigest: [UInt8]
        var at: ContinuousClock.Instant
    }

    private let pool: PostgresPool
    private let slowWork: SlowWork
    private let cacheTTL: Duration
    private let cacheLimit = 10_000
    private let verified = Mutex<[String: Verified]>([:])
    private let verify: @Sendable (_ secret: String, _ storedHash: String) -> Bool

    /// A hash no secret is expected to match, made like every new one (made once, on the
    /// first unknown key).
    static let unknownKeyHash = SecretHasher.hash("pushrelay: no app has this key")

    /// - Parameters:
    ///   - verify: the hash check; tests count its calls.
    init(pool: PostgresPool, slowWork: SlowWork, cacheTTL: Duration,
         verify: @escaping @Sendable (_ secret: String, _ storedHash: String) -> Bool = { SecretHasher.verify($0, against: $1) }) {
        self.pool = pool
        self.slowWork = slowWork
        self.cacheTTL = cacheTTL
        self.verify = verify
    }

    /// - Parameters:
    ///   - credentials: the request's Basic credentials, nil when it has none.
    ///   - failure: the 401 to answer, in the calling route family's code (1004, 7004, 3001, 8101).
    func authenticate(_ credentials: BasicCredentials?, failure: JPushError) async throws -> AuthenticatedApp {
        guard let credentials, AppKey.isWellFormed(credentials.user), !credentials.password.isEmpty else {
            throw failure
        }
        let verify = verify
        let password = credentials.password
        // Not a named prepared statement: API nodes behind PgBouncer in transaction mode must
        // still authenticate (PgBouncerTests); the statement is one index probe.
        let rows = try await pool.query(Self.credentialsSQL, [credentials.user])
        guard let row = rows.first else {
            _ = verify(password, Self.unknownKeyHash)
            throw failure
        }
        let appID = Int64(try row.int("id"))
        let storedHash = try row.string("secret_hash")
        let rateLimit = row["rate_limit_per_minute"].flatMap { Int($0) }
        let digest = Digest.sha256(Array(credentials.password.utf8))
        let now = ContinuousClock.now

        let cached = verified.withLock { entries -> Bool in
            guard let entry = entries[credentials.user] else { return false }
            return entry.storedHash == storedHash && entry.presentedDigest == digest && now - entry.at < cacheTTL
        }
        if !cached {
            let ok = SecretHasher.isSlow(storedHash) ? await slowWork.run { verify(password, storedHash) } : verify(password, storedHash)
            guard ok else { throw failure }
            let limit = cacheLimit
            verified.withLock { entries in
                if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
                entries[credentials.user] = Verified(appID: appID, storedHash: storedHash, presentedDigest: digest, at: now)
            }
        }
        return AuthenticatedApp(id: appID, appKey: credentials.user, rateLimitPerMinute: rateLimit)
    }

    static let credentialsSQL = "SELECT id, secret_hash, rate_limit_per_minute FROM apps WHERE app_key = $1"

    /// Whether these credentials were verified within the cache's time (their app's hash
    /// may have changed since: `authenticate` still decides).
    func recentlyVerified(_ credentials: BasicCredentials) -> Bool {
        let digest = Digest.sha256(Array(credentials.password.utf8))
        let now = ContinuousClock.now
        return verified.withLock { entries in
            entries[credentials.user].map { $0.presentedDigest == digest && now - $0.at < cacheTTL } ?? false
        }
    }

    /// Drops what is cached for an app whose secret changed or which was deleted.
    func forget(appKey: String) {
        _ = verified.withLock { $0.removeValue(forKey: appKey) }
    }
}

/// JPush app keys: 24 lowercase hex characters.
enum AppKey {
    static func isWellFormed(_ key: String) -> Bool {
        key.utf8.count == 24 && key.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    static func generate() -> String { SecureRandom.hex(12) }
}
