import Foundation
import RelayCore

/// What the dashboard says about an app's APNs credential: fine, worth a warning (no
/// credential, a certificate expiring within 30 days) or broken (APNs refused it, or the
/// certificate has expired).
struct CredentialStatus: Sendable, Equatable {
    enum Level: String, Sendable {
        case ok, warning, bad
    }

    static let warningDays = 30

    var level: Level
    var text: String

    /// - Parameters:
    ///   - auth: `token` or `certificate`; nil when the app has no credential.
    ///   - certificateExpiresAt: a certificate's end of validity.
    ///   - brokenReason: set while APNs refuses the credential.
    static func of(auth: String?, certificateExpiresAt: Date?, brokenReason: String?, now: Date) -> CredentialStatus {
        guard let auth else { return CredentialStatus(level: .warning, text: "no APNs credential") }
        if let brokenReason { return CredentialStatus(level: .bad, text: "refused by APNs (\(brokenReason)): deliveries paused") }
        guard auth == "certificate", let expiry = certificateExpiresAt else { return CredentialStatus(level: .ok, text: "token key") }
        let days = Int(saturating: expiry.timeIntervalSince(now) / 86400, rounding: .down)
        if expiry <= now { return CredentialStatus(level: .bad, text: "certificate expired \(ReportTime.format(expiry).prefix(10))") }
        if days < warningDays {
            return CredentialStatus(level: .warning, text: "certificate expires in \(days) day\(days == 1 ? "" : "s") (\(ReportTime.format(expiry).prefix(10)))")
        }
        return CredentialStatus(level: .ok, text: "certificate until \(ReportTime.format(expiry).prefix(10))")
    }
}
