import PostgresStore

/// What the API shows of an app's FCM credential: metadata only, never the private key.
public struct FCMCredentialMetadata: Encodable, Sendable, Equatable {
    public var projectID: String
    public var clientEmail: String
    public var privateKeyID: String
    public var tokenURI: String
    public var updatedAt: String
    public var brokenAt: String?
    public var brokenReason: String?

    public init(row: PostgresRow) throws {
        projectID = try row.string("project_id")
        clientEmail = try row.string("client_email")
        privateKeyID = try row.string("private_key_id")
        tokenURI = try row.string("token_uri")
        updatedAt = try row.string("updated_at")
        brokenAt = row["broken_at"]
        brokenReason = row["broken_reason"]
    }

    private enum CodingKeys: String, CodingKey {
        case projectID = "project_id", clientEmail = "client_email", privateKeyID = "private_key_id", tokenURI = "token_uri"
        case updatedAt = "updated_at", brokenAt = "broken_at", brokenReason = "broken_reason"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(projectID, forKey: .projectID)
        try container.encode(clientEmail, forKey: .clientEmail)
        try container.encode(privateKeyID, forKey: .privateKeyID)
        try container.encode(tokenURI, forKey: .tokenURI)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(brokenAt, forKey: .brokenAt)
        try container.encode(brokenReason, forKey: .brokenReason)
    }
}
