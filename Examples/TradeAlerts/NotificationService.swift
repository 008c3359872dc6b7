// The Notification Service Extension target: reports "received" for each notification the
// relay sends with mutable-content (IOSNotification(mutableContent: true)), then shows it.
// It is a separate process: it reads the device secret from the Keychain group and queues
// in the App Group that the app shares (the `Relay` enum of App.swift, in both targets).
import PushRelayKit
import UserNotifications

final class NotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let userInfo = request.content.userInfo
        Task {
            _ = await Relay.receipts.didReceive(userInfo)  // at most 5 s; queued for the app if it cannot be sent
            contentHandler(request.content)
        }
    }
}
