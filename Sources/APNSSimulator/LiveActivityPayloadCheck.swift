import APNSClient
import RelayCore

/// What a Live Activity push's payload must carry (Apple, "Starting and updating Live
/// Activities with ActivityKit push notifications"): `aps.timestamp` (Unix seconds),
/// `aps.event` (`start`, `update` or `end`) and `aps.content-state` (an object); a start also
/// `attributes-type` (a string) and `attributes` (an object). A device drops a push without
/// them; the simulator answers 400 `InvalidLiveActivityPayload` so a test sees the mistake.
public enum LiveActivityPayloadCheck {
    /// The simulator's reason for a Live Activity payload missing a field or giving a wrong one.
    public static let invalid = APNSReason.unknown("InvalidLiveActivityPayload")

    /// `invalid` when `body` breaks a rule, else nil.
    public static func reason(_ body: [UInt8]) -> APNSReason? {
        guard case .object(let top)? = try? JSONValue.parse(body), case .object(let aps)? = top["aps"],
              case .number(let timestamp)? = aps["timestamp"], let seconds = timestamp.int64, seconds >= 0,
              case .string(let event)? = aps["event"], ["start", "update", "end"].contains(event),
              case .object? = aps["content-state"]
        else { return invalid }
        if event == "start" {
            guard case .string(let type)? = aps["attributes-type"], !type.isEmpty, case .object? = aps["attributes"] else { return invalid }
        }
        if aps["dismissal-date"] != nil, event != "end" { return invalid }
        return nil
    }
}
