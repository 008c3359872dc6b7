import PostgresStore
import PushCore

/// The SQL condition selecting an audience's devices (`devices d`): active devices of one app
/// and environment, with every given list of the filter ANDed, as JPush defines it.
///
/// Each part is one index range: `devices_fanout` for the app, `device_tags`' primary key
/// (app_id, tag, device_id) for tag tests, `devices_alias` for aliases.
struct AudienceQuery {
    /// The condition, with placeholders numbered from the `firstParameter` given.
    let condition: String
    let parameters: [(any PostgresBindable)?]

    /// - Parameters:
    ///   - firstParameter: the number of the first placeholder this condition may use.
    init(_ audience: Audience, appID: Int64, environment: String, firstParameter: Int) {
        var next = firstParameter
        var parameters: [(any PostgresBindable)?] = []
        func bind(_ value: any PostgresBindable) -> String {
            parameters.append(value)
            defer { next += 1 }
            return "$\(next)"
        }
        var parts = ["d.app_id = \(bind(appID))", "d.environment = \(bind(environment))", "d.active"]
        if case .filter(let filter) = audience {
            if !filter.tags.isEmpty {
                parts.append("""
                    EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = d.app_id AND t.tag = ANY (\(bind(SQLArray.text(filter.tags)))::text[]) AND t.device_id = d.id)
                    """)
            }
            if !filter.tagsAnd.isEmpty {
                parts.append("""
                    (SELECT count(*) FROM device_tags t WHERE t.app_id = d.app_id AND t.tag = ANY (\(bind(SQLArray.text(filter.tagsAnd)))::text[]) AND t.device_id = d.id) = \(filter.tagsAnd.count)
                    """)
            }
            if !filter.tagsNot.isEmpty {
                parts.append("""
                    NOT EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = d.app_id AND t.tag = ANY (\(bind(SQLArray.text(filter.tagsNot)))::text[]) AND t.device_id = d.id)
                    """)
            }
            if !filter.aliases.isEmpty {
                parts.append("d.alias = ANY (\(bind(SQLArray.text(filter.aliases)))::text[])")
            }
            if !filter.registrationIDs.isEmpty {
                // Ids that cannot be ours match nothing (as ids of another app do).
                let uuids = filter.registrationIDs.filter(Self.isRegistrationID)
                parts.append("d.registration_id = ANY (\(bind(SQLArray.text(uuids)))::uuid[])")
            }
        }
        condition = parts.joined(separator: " AND ")
        self.parameters = parameters
    }

    /// Registration ids are 32 lowercase hex digits (a uuid without dashes).
    static func isRegistrationID(_ raw: String) -> Bool {
        raw.utf8.count == 32 && raw.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
