#if canImport(UserNotifications)
import Foundation
import UserNotifications

/// The `UNUserNotificationCenter` delegate that hands taps and foreground arrivals to a
/// `NotificationRouter`. Keep a strong reference: the centre's delegate is weak.
public final class UserNotificationsBridge: NSObject, UNUserNotificationCenterDelegate, Sendable {
    private let tap: @Sendable (NotificationPayload) -> Void
    private let foreground: @Sendable (NotificationPayload) -> ForegroundPresentation

    public init<Destination: Sendable>(router: NotificationRouter<Destination>) {
        self.tap = { router.handleTap($0) }
        self.foreground = { router.handleForeground($0) }
    }

    /// Becomes the centre's delegate; call it before the app finishes launching, so the
    /// tap that launched the app is not missed.
    public func install(on center: UNUserNotificationCenter = .current()) {
        center.delegate = self
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                       withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void) {
        guard let payload = Self.payload(notification) else { return completionHandler([.banner, .sound, .list]) }
        completionHandler(Self.options(foreground(payload)))
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                       withCompletionHandler completionHandler: @escaping () -> Void) {
        if response.actionIdentifier == UNNotificationDefaultActionIdentifier, let payload = Self.payload(response.notification) {
            tap(payload)
        }
        completionHandler()
    }

    private static func payload(_ notification: UNNotification) -> NotificationPayload? {
        try? NotificationPayload(userInfo: notification.request.content.userInfo, identifier: notification.request.identifier)
    }

    private static func options(_ presentation: ForegroundPresentation) -> UNNotificationPresentationOptions {
        var options: UNNotificationPresentationOptions = []
        if presentation.contains(.banner) { options.insert(.banner) }
        if presentation.contains(.sound) { options.insert(.sound) }
        if presentation.contains(.badge) { options.insert(.badge) }
        if presentation.contains(.list) { options.insert(.list) }
        return options
    }
}

/// The app icon's badge, for `PushRegistrar(setOSBadge:)`.
public enum SystemBadge {
    public static func set(_ count: Int) async throws {
        try await UNUserNotificationCenter.current().setBadgeCount(count)
    }
}
#endif
