import RelayCore
import RelayStore

/// An app's devices in `GET /admin/v1/apps/{app_key}`:
/// `{"sandbox":{"active":n,"invalidated":n},"production":{…},"total":n}`.
extension DeviceCounts: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        for (environment, states) in environments {
            var fields = container.nestedContainer(keyedBy: AnswerKey.self, forKey: AnswerKey(environment.rawValue))
            try fields.encode(states.active, forKey: "active")
            try fields.encode(states.invalidated, forKey: "invalidated")
        }
        try container.encode(total, forKey: "total")
    }
}
