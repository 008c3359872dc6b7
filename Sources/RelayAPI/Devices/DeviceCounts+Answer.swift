import RelayCore
import RelayStore

/// An app's devices in `GET /admin/v1/apps/{app_key}`:
/// `{"sandbox":{"active":n,"invalidated":n},"production":{…},"android":{…},"total":n}`
/// (sandbox and production: the iOS devices of each APNs environment).
extension DeviceCounts: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        let groups = environments.map { ($0.key.rawValue, $0.value) } + [(DevicePlatform.android.rawValue, android)]
        for (name, states) in groups {
            var fields = container.nestedContainer(keyedBy: AnswerKey.self, forKey: AnswerKey(name))
            try fields.encode(states.active, forKey: "active")
            try fields.encode(states.invalidated, forKey: "invalidated")
        }
        try container.encode(total, forKey: "total")
    }
}
