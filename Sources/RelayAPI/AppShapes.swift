import RelayCore
import RelayStore

/// The JSON answers of the app and credential routes, around `AppRecord`.
enum AppShapes {
    /// An app as the admin API shows it.
    struct App: Encodable {
        var record: AppRecord

        init(_ record: AppRecord) {
            self.record = record
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            for (key, text) in [("app_key", record.appKey), ("name", record.name), ("created_at", record.createdAt),
                                ("secret_rotated_at", record.secretRotatedAt)] {
                try container.encode(text, forKey: AnswerKey(key))
            }
        }
    }

    /// `GET /admin/v1/apps/{app_key}`: the app, its credentials (`apns`, `fcm`, each null
    /// without one), its device counts and its client settings.
    struct Shown: Encodable {
        var record: AppRecord
        var credentials: AppCredentials?
        var fcm: FCMCredentialMetadata?
        var devices: DeviceCounts

        func encode(to encoder: any Encoder) throws {
            try App(record).encode(to: encoder)
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(credentials, forKey: "apns")
            try container.encode(fcm, forKey: "fcm")
            try container.encode(devices, forKey: "devices")
            try container.encode(record.clientMaySetAlias, forKey: "client_may_set_alias")
        }
    }

    /// `PUT /admin/v1/apps/{app_key}/client-settings`: what the app's devices may do with
    /// their own secret.
    struct ClientSettings: Encodable {
        var record: AppRecord

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(record.appKey, forKey: "app_key")
            try container.encode(record.clientMaySetAlias, forKey: "client_may_set_alias")
        }
    }

    /// `PUT /admin/v1/apps/{app_key}/rate_limit`: the limit in force, and whether it is the default.
    struct RateLimit: Encodable {
        var appKey: String
        var perMinute: Int
        var isDefault: Bool

        enum CodingKeys: String, CodingKey { case appKey = "app_key", perMinute = "per_minute", isDefault = "default" }
    }

    /// What a `DELETE` of an app, or of its credential (in one `environment`, or both), removed.
    struct Deleted: Encodable {
        var appKey: String
        var environment: DeviceEnvironment?
        var deleted = true

        enum CodingKeys: String, CodingKey { case appKey = "app_key", environment, deleted }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(appKey, forKey: .appKey)
            try container.encodeIfPresent(environment?.rawValue, forKey: .environment)
            try container.encode(deleted, forKey: .deleted)
        }
    }
}
