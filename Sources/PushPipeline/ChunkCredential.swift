import PostgresStore

/// The credential a chunk is sent with, by its platform: the app's APNs credential for the
/// message's environment, or its FCM service account.
enum ChunkCredential: Sendable, Equatable {
    case apns(AppCredential)
    case fcm(FCMCredential)

    var appKey: String {
        switch self {
        case .apns(let credential): credential.appKey
        case .fcm(let credential): credential.appKey
        }
    }

    var isBroken: Bool {
        switch self {
        case .apns(let credential): credential.isBroken
        case .fcm(let credential): credential.isBroken
        }
    }

    /// The service refusing it, in logs.
    var service: String {
        switch self {
        case .apns(let credential): "APNs (\(credential.environment))"
        case .fcm: "FCM"
        }
    }

    /// Marks it broken: the chunks it sends wait for a new upload.
    func markBroken(reason: String, on connection: PostgresConnection) throws {
        switch self {
        case .apns(let credential): try credential.markBroken(reason: reason, on: connection)
        case .fcm(let credential): try credential.markBroken(reason: reason, on: connection)
        }
    }

    /// The credential in a row of `LeaseStatements`' credential columns (`has_credential`,
    /// `app_key`, `environment`, `version`, `broken`, `sealed_secret`, and APNs' `auth`,
    /// `topic`, `key_id`, `team_id`) for a chunk of `platform`; nil when the app has none.
    init?(row: PostgresRow, appID: Int64, platform: ChunkPlatform) throws {
        guard try row.bool("has_credential") else { return nil }
        if platform.isAPNs {
            self = .apns(try AppCredential(row: row, appID: appID))
        } else {
            self = .fcm(FCMCredential(appID: appID, appKey: try row.string("app_key"), version: try row.string("version"),
                                      isBroken: try row.bool("broken"), sealedSecret: try row.bytes("sealed_secret")))
        }
    }
}
