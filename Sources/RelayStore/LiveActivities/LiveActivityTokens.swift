import PushCore
import RelayCore

/// What a device says of a Live Activity (ActivityKit's `ActivityState`): updates and ends go
/// to the activities that are `active` or `stale` on it; `ended` and `dismissed` ones are not
/// pushed any more.
public enum LiveActivityState: String, Sendable, CaseIterable {
    case active, ended, dismissed, stale
}

/// A device's Live Activity token or state, from the bodies of the token routes
/// (`/v3/live-activities/…` with `registration_id`, `/client/v1/live-activities/…` with the
/// device's secret and its `registration_id`; docs/live-activities.md).
public struct LiveActivityTokenChange: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        /// A push-to-start token for an ActivityAttributes type.
        case startToken(attributesType: String, token: DeviceToken)
        /// An activity's update token.
        case activityToken(activityID: String, token: DeviceToken)
        case state(activityID: String, LiveActivityState)
    }

    public var registrationID: String
    public var change: Change

    public init(registrationID: String, change: Change) {
        self.registrationID = registrationID
        self.change = change
    }

    /// `{registration_id, attributes_type, token}`.
    ///
    /// - Throws: `JPushError` for the JSON's shape and the attributes type, `DeviceFieldError` for the token.
    public static func startToken(_ body: JSONObjectReader) throws -> LiveActivityTokenChange {
        try body.rejectUnknownKeys(allowed: ["registration_id", "attributes_type", "token"])
        let type = try body.string("attributes_type")
        try LiveActivityContent.checkAttributesType(type, field: "attributes_type")
        return LiveActivityTokenChange(registrationID: try body.string("registration_id"),
                                       change: .startToken(attributesType: type, token: try token(body)))
    }

    /// `{registration_id, token}` for the activity of the path.
    public static func activityToken(_ body: JSONObjectReader, activityID: String) throws -> LiveActivityTokenChange {
        try body.rejectUnknownKeys(allowed: ["registration_id", "token"])
        try LiveActivityContent.checkActivityID(activityID, field: "activity_id (in the path)")
        return LiveActivityTokenChange(registrationID: try body.string("registration_id"),
                                       change: .activityToken(activityID: activityID, token: try token(body)))
    }

    /// `{registration_id, state}` for the activity of the path.
    public static func state(_ body: JSONObjectReader, activityID: String) throws -> LiveActivityTokenChange {
        try body.rejectUnknownKeys(allowed: ["registration_id", "state"])
        try LiveActivityContent.checkActivityID(activityID, field: "activity_id (in the path)")
        let text = try body.string("state")
        guard let state = LiveActivityState(rawValue: text) else {
            throw JPushError.illegalValue("state must be active, ended, dismissed or stale, got \(InputEcho.quoted(text))")
        }
        return LiveActivityTokenChange(registrationID: try body.string("registration_id"), change: .state(activityID: activityID, state))
    }

    /// ActivityKit tokens are APNs device tokens: hex, 64 to 200 digits.
    private static func token(_ body: JSONObjectReader) throws -> DeviceToken {
        try DeviceToken(parsing: try body.string("token"), platform: .ios)
    }
}
