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
}
