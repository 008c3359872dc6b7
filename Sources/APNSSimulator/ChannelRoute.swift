/// The broadcast paths APNs serves besides `/3/device/<token>` (Apple, "Sending channel
/// management requests to APNs" and "Sending broadcast push notification requests to APNs").
enum ChannelRoute: Equatable {
    /// `/1/apps/<bundle id>/channels`: create (POST), read (GET), delete (DELETE).
    case channels(bundleID: String)
    /// `/1/apps/<bundle id>/all-channels`: list (GET).
    case allChannels(bundleID: String)
    /// `/4/broadcasts/apps/<bundle id>`: send (POST).
    case broadcast(bundleID: String)

    /// The route of `path`, or nil when it is none of them (then it is a device path or BadPath).
    init?(path: String) {
        let segments = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch segments.count {
        case 5 where segments[0].isEmpty && segments[1] == "1" && segments[2] == "apps" && !segments[3].isEmpty:
            switch segments[4] {
            case "channels": self = .channels(bundleID: segments[3])
            case "all-channels": self = .allChannels(bundleID: segments[3])
            default: return nil
            }
        case 5 where segments[0].isEmpty && segments[1] == "4" && segments[2] == "broadcasts" && segments[3] == "apps"
            && !segments[4].isEmpty:
            self = .broadcast(bundleID: segments[4])
        default:
            return nil
        }
    }

    var bundleID: String {
        switch self {
        case let .channels(bundleID), let .allChannels(bundleID), let .broadcast(bundleID): bundleID
        }
    }

    /// The methods the route takes.
    func allows(_ method: String) -> Bool {
        switch self {
        case .channels: ["POST", "GET", "DELETE"].contains(method)
        case .allChannels: method == "GET"
        case .broadcast: method == "POST"
        }
    }
}
