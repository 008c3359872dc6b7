#if canImport(PushKit)
import Foundation
import PushKit

/// Feeds a `PushTokenReporter` from PushKit: the device's VoIP token (and, when asked, its
/// File Provider or complication token), each time PushKit hands one out, as
/// `PATCH /client/v1/devices/{registration_id}` `{"token_type":"voip","token":…}`.
///
/// Keep it alive as long as the app (PushKit holds its delegate weakly). The app still
/// handles incoming pushes: pass `onPush`, which must report a VoIP push to CallKit before it
/// returns (iOS ends apps that do not).
public final class PushKitTokens: NSObject, PKPushRegistryDelegate, @unchecked Sendable {
    // Thread rule: PushKit calls the delegate on `queue`; nothing here is mutated after init.
    private let reporter: PushTokenReporter
    private let registry: PKPushRegistry
    private let onPush: @Sendable (PKPushPayload, PKPushType, @escaping () -> Void) -> Void

    /// - Parameters:
    ///   - types: the push types to register for (`.voIP` for calls).
    ///   - onPush: the app's handler of incoming pushes; call the completion when done.
    public init(reporter: PushTokenReporter, types: Set<PKPushType> = [.voIP], queue: DispatchQueue = .main,
                onPush: @escaping @Sendable (PKPushPayload, PKPushType, @escaping () -> Void) -> Void) {
        self.reporter = reporter
        self.registry = PKPushRegistry(queue: queue)
        self.onPush = onPush
        super.init()
        registry.delegate = self
        registry.desiredPushTypes = types
    }

    /// The relay's name for a PushKit type; nil for one it does not take.
    static func tokenType(_ type: PKPushType) -> PushTokenType? {
        switch type {
        case .voIP: .voip
        case .fileProvider: .fileprovider
        default: type.rawValue == "PKPushTypeComplication" ? .complication : nil
        }
    }

    public func pushRegistry(_ registry: PKPushRegistry, didUpdate credentials: PKPushCredentials, for type: PKPushType) {
        guard let tokenType = Self.tokenType(type) else { return }
        let token = credentials.token
        let reporter = reporter
        Task { await reporter.report(tokenType, token: token) }
    }

    public func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
                             completion: @escaping () -> Void) {
        onPush(payload, type, completion)
    }

    /// An invalidated token needs nothing from the phone: the relay drops it when APNs refuses it.
    public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {}
}
#endif
