import Foundation
import RelayStore

extension DashboardApp {
    /// Each environment's credential (nil: none) and its status, production first.
    func credentials(now: Date) -> [(environment: DeviceEnvironment, credential: Credential?, status: CredentialStatus)] {
        [(DeviceEnvironment.production, productionCredential), (.sandbox, sandboxCredential)].map { environment, credential in
            (environment, credential, CredentialStatus.of(auth: credential?.auth, certificateExpiresAt: credential?.certificateExpiresAt,
                                                           brokenReason: credential?.brokenReason, now: now))
        }
    }

    /// The FCM credential's status: a missing one is worth a warning only once the app has
    /// Android devices.
    var fcmStatus: CredentialStatus {
        if let reason = fcmBrokenReason { return CredentialStatus(level: .bad, text: "refused by FCM (\(reason)): deliveries paused") }
        if fcmProjectID != nil { return CredentialStatus(level: .ok, text: "service account") }
        return CredentialStatus(level: android > 0 ? .warning : .ok, text: "no FCM credential")
    }
}
