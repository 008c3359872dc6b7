import Foundation
import PostgresStore

/// What the API shows of one environment's APNs credential: metadata only, never the secret
/// material. Absent values are `null`, as the single-credential answers always had them.
public struct CredentialMetadata: Encodable, Sendable, Equatable {
    public var environment: DeviceEnvironment
    public var auth: String
    public var topic: String
    public var keyID: String?
    public var teamID: String?
    public var certificateSubject: String?
    public var certificateExpiresAt: String?
    public var updatedAt: String
    public var brokenAt: String?
    public var brokenReason: String?

    public init(row: PostgresRow) throws {
        guard let environment = DeviceEnvironment(rawValue: try row.string("environment")) else {
            throw PostgresError.protocolViolation("apns_credentials.environment is neither sandbox nor production")
        }
        self.environment = environment
        auth = try row.string("auth")
        topic = try row.string("topic")
        keyID = row["key_id"]
        teamID = row["team_id"]
        certificateSubject = row["certificate_subject"]
        certificateExpiresAt = row["certificate_expires_at"]
        updatedAt = try row.string("updated_at")
        brokenAt = row["broken_at"]
        brokenReason = row["broken_reason"]
    }

    private enum CodingKeys: String, CodingKey {
        case environment, auth, topic, keyID = "key_id", teamID = "team_id", certificateSubject = "certificate_subject"
        case certificateExpiresAt = "certificate_expires_at", updatedAt = "updated_at", brokenAt = "broken_at"
        case brokenReason = "broken_reason"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(environment.rawValue, forKey: .environment)
        try container.encode(auth, forKey: .auth)
        try container.encode(topic, forKey: .topic)
        try container.encode(keyID, forKey: .keyID)
        try container.encode(teamID, forKey: .teamID)
        try container.encode(certificateSubject, forKey: .certificateSubject)
        try container.encode(certificateExpiresAt, forKey: .certificateExpiresAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(brokenAt, forKey: .brokenAt)
        try container.encode(brokenReason, forKey: .brokenReason)
    }
}

/// An app's credentials in both environments, as `/admin/v1/apps/{app_key}/apns` and the app's
/// `apns` field show them: each environment's (or `null`) under `sandbox` and `production`,
/// and at the top the fields of the credential a push uses by default (production's, else
/// sandbox's; `environment` says which), the shape of the answers from before credentials
/// were per environment.
public struct AppCredentials: Encodable, Sendable, Equatable {
    public var sandbox: CredentialMetadata?
    public var production: CredentialMetadata?

    /// nil when neither environment has a credential.
    public init?(_ credentials: [CredentialMetadata]) {
        sandbox = credentials.first { $0.environment == .sandbox }
        production = credentials.first { $0.environment == .production }
        if sandbox == nil && production == nil { return nil }
    }

    private enum CodingKeys: String, CodingKey {
        case sandbox, production
    }

    public func encode(to encoder: any Encoder) throws {
        try (production ?? sandbox)?.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sandbox, forKey: .sandbox)
        try container.encode(production, forKey: .production)
    }
}
