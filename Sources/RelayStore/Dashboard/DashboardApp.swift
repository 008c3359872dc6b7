import Foundation
import PostgresStore

/// An app as the dashboard's pages show it: its APNs credential per environment and its
/// active devices per environment (counted on the registry's fan-out index).
public struct DashboardApp: Sendable {
    /// One environment's APNs credential, as the pages show it.
    public struct Credential: Sendable {
        public var auth: String
        public var topic: String
        public var certificateExpiresAt: Date?
        public var brokenReason: String?

        public init(auth: String, topic: String, certificateExpiresAt: Date?, brokenReason: String?) {
            self.auth = auth
            self.topic = topic
            self.certificateExpiresAt = certificateExpiresAt
            self.brokenReason = brokenReason
        }
    }

    public var key: String
    public var name: String
    public var createdAt: String
    public var sandboxCredential: Credential?
    public var productionCredential: Credential?
    /// Active iOS devices per APNs environment.
    public var production: Int
    public var sandbox: Int
    /// Active Android devices.
    public var android: Int
    /// Tokens of other kinds held, by kind (`PushTokenKind`'s raw value): VoIP tokens of
    /// active devices, and the rows of `device_push_tokens`; kinds nobody holds are absent.
    public var pushTokens: [String: Int] = [:]
    /// The FCM credential's Firebase project (nil: none), and why FCM refused it.
    public var fcmProjectID: String?
    public var fcmBrokenReason: String?

    public init(key: String, name: String, createdAt: String, sandboxCredential: Credential?, productionCredential: Credential?,
                production: Int, sandbox: Int, android: Int = 0, fcmProjectID: String? = nil, fcmBrokenReason: String? = nil) {
        self.android = android
        self.fcmProjectID = fcmProjectID
        self.fcmBrokenReason = fcmBrokenReason
        self.key = key
        self.name = name
        self.createdAt = createdAt
        self.sandboxCredential = sandboxCredential
        self.productionCredential = productionCredential
        self.production = production
        self.sandbox = sandbox
    }

    /// Every app (or the one with `key`), by name.
    public static func read(key: String? = nil, pool: PostgresPool) async throws -> [DashboardApp] {
        let rows = if let key {
            try await pool.preparedQuery(DashboardAppStatements.one, [key])
        } else {
            try await pool.preparedQuery(DashboardAppStatements.every)
        }
        return try rows.map { row in
            func credential(_ prefix: String) throws -> Credential? {
                guard let auth = row["\(prefix)_auth"] else { return nil }
                return Credential(
                    auth: auth, topic: try row.string("\(prefix)_topic"),
                    certificateExpiresAt: row["\(prefix)_certificate_expires_at"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0) },
                    brokenReason: row["\(prefix)_broken_reason"])
            }
            var app = DashboardApp(key: try row.string("app_key"), name: try row.string("name"), createdAt: try row.string("created_at"),
                                   sandboxCredential: try credential("sandbox"), productionCredential: try credential("production"),
                                   production: try row.int("production"), sandbox: try row.int("sandbox"), android: try row.int("android"),
                                   fcmProjectID: row["fcm_project_id"], fcmBrokenReason: row["fcm_broken_reason"])
            app.pushTokens = try JSONDecoder().decode([String: Int].self, from: Data(try row.string("push_tokens").utf8))
            let voip = try row.int("voip_tokens")
            if voip > 0 { app.pushTokens["voip"] = voip }
            return app
        }
    }
}
