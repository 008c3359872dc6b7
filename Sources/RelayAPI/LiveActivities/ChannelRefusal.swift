import APNSClient
import RelayCore

/// What the API answers when APNs did not do what a channel route asked: the app's own
/// setup (broadcast capability, credential, channel limit) is a 400 saying what to fix, a
/// channel APNs no longer knows a 404, and an APNs that is busy or unreachable a 503 to retry.
enum ChannelRefusal {
    static func error(status: Int, reason: APNSReason, channelID: String? = nil) -> JPushError {
        switch (status, reason) {
        case (_, .featureNotEnabled):
            .illegalValue("APNs: broadcast is not enabled for the app's bundle id (FeatureNotEnabled); "
                + "enable the Broadcast capability of the App ID at developer.apple.com")
        case (_, .cannotCreateChannelConfig):
            .illegalValue("APNs: the app has as many channels as APNs allows (10,000 per environment, CannotCreateChannelConfig); "
                + "delete channels no longer used")
        case (_, .channelNotRegistered):
            unknownChannel(channelID ?? "")
        case (403, _):
            .illegalValue("APNs refused the app's token credential (\(reason)); upload a valid .p8 key")
        case (429, _), (500..., _):
            JPushError(status: 503, code: 1030, message: "APNs did not take the request (\(status) \(reason)), try again")
        default:
            .illegalValue("APNs refused the request (\(status) \(reason))")
        }
    }

    static func error(_ failure: APNSFailure) -> JPushError {
        switch failure {
        case let .invalid(problem): .illegalValue(problem.description)
        case .refused, .connectionFailed, .timedOut, .expired, .shutdown:
            JPushError(status: 503, code: 1030, message: "APNs could not be reached (\(failure)), try again")
        }
    }

    /// The 404 for a channel the app does not have (another app's included: it is not told apart).
    static func unknownChannel(_ channelID: String) -> JPushError {
        JPushError(status: 404, code: 1008, message: "the app has no Live Activity channel \(InputEcho.quoted(channelID))")
    }
}
