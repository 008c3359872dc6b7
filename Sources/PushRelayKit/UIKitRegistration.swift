#if canImport(UIKit) && canImport(UserNotifications) && !os(tvOS) && !os(watchOS)
import UIKit
import UserNotifications

/// The permission prompt first, registration with APNs only when the user said yes:
/// the token then arrives in `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`,
/// which hands it to `PushRegistrar.didReceiveToken(_:)`.
public enum RemoteNotificationPermission {
    /// Asks (the system shows the prompt once) and registers for remote notifications when granted.
    ///
    /// - Returns: whether notifications are allowed.
    public static func requestAndRegister(options: UNAuthorizationOptions = [.alert, .sound, .badge]) async throws -> Bool {
        let granted = try await UNUserNotificationCenter.current().requestAuthorization(options: options)
        if granted { await MainActor.run { UIApplication.shared.registerForRemoteNotifications() } }
        return granted
    }

    /// On later launches: registers again when permission was already granted (APNs may
    /// hand out a new token), without prompting.
    public static func registerIfAuthorized() async {
        let status = await UNUserNotificationCenter.current().notificationSettings().authorizationStatus
        if [.authorized, .provisional, .ephemeral].contains(status) {
            await MainActor.run { UIApplication.shared.registerForRemoteNotifications() }
        }
    }
}
#endif
