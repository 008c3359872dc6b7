import Foundation
import RelayCore
import RelayCrypto

/// An app's APNs credential as uploaded: metadata anyone with the admin token may read,
/// and secret material that is only ever stored sealed.
public struct APNSCredential: Sendable, Equatable {
    public enum Auth: String, Sendable { case token, certificate }

    public var auth: Auth
    public var topic: String
    public var keyID: String?
    public var teamID: String?
    public var certificateExpiresAt: Date?
    public var certificateSubject: String?
    /// JSON: `{"private_key"}` for token auth, `{"certificate","private_key"}` for certificates.
    public var secretMaterial: [UInt8]

    /// Validates a `PUT /admin/v1/apps/{app_key}/apns` body, saying exactly what is wrong.
    public static func parse(_ body: [UInt8], now: Date) throws(JPushError) -> APNSCredential {
        let reader = try JSONObjectReader(body)
        let topic = try reader.string("topic")
        guard isBundleID(topic) else {
            throw JPushError.illegalValue("topic must be the app's bundle id (letters, digits, '.', '-'; at most 255 characters), got \(InputEcho.quoted(topic))")
        }
        switch try reader.string("auth") {
        case "token":
            try reader.rejectUnknownKeys(allowed: ["auth", "topic", "key_id", "team_id", "private_key"])
            let keyID = try reader.string("key_id")
            let teamID = try reader.string("team_id")
            guard isAppleIdentifier(keyID) else { throw JPushError.illegalValue("key_id must be the 10-character key id from Apple (A-Z, 0-9), got \(InputEcho.quoted(keyID))") }
            guard isAppleIdentifier(teamID) else { throw JPushError.illegalValue("team_id must be the 10-character team id from Apple (A-Z, 0-9), got \(InputEcho.quoted(teamID))") }
            let uploaded = try reader.string("private_key")
            let pem: String
            do { pem = try APNSCredentialCheck.tokenKey(pem: uploaded) } catch {
                throw JPushError.illegalValue(error.message)
            }
            return APNSCredential(auth: .token, topic: topic, keyID: keyID, teamID: teamID,
                                  secretMaterial: try encode(["private_key": pem]))
        case "certificate":
            try reader.rejectUnknownKeys(allowed: ["auth", "topic", "certificate", "private_key", "p12", "password"])
            let certificatePEM: String
            let keyPEM: String
            let info: CertificateInfo
            do {
                if reader.has("p12") {
                    guard !reader.has("certificate"), !reader.has("private_key") else {
                        throw JPushError.illegalValue("give either p12 (with password) or certificate and private_key, not both")
                    }
                    guard let der = Data(base64Encoded: try reader.string("p12"), options: .ignoreUnknownCharacters) else {
                        throw JPushError.illegalValue("p12 must be the .p12 file in base64")
                    }
                    (certificatePEM, keyPEM, info) = try APNSCredentialCheck.pkcs12([UInt8](der), password: try reader.optionalString("password") ?? "", now: now)
                } else {
                    guard !reader.has("password") else { throw JPushError.illegalValue("password goes with p12 only") }
                    certificatePEM = try reader.string("certificate")
                    keyPEM = try reader.string("private_key")
                    info = try APNSCredentialCheck.certificate(certificatePEM: certificatePEM, privateKeyPEM: keyPEM, now: now)
                }
            } catch let error as CredentialError {
                throw JPushError.illegalValue(error.message)
            } catch let error as JPushError {
                throw error
            } catch {
                throw JPushError.illegalValue("\(error)")
            }
            return APNSCredential(auth: .certificate, topic: topic, certificateExpiresAt: info.notAfter,
                                  certificateSubject: info.subject,
                                  secretMaterial: try encode(["certificate": certificatePEM, "private_key": keyPEM]))
        case let other:
            throw JPushError.illegalValue("auth must be \"token\" or \"certificate\", got \(InputEcho.quoted(other))")
        }
    }

    private static func encode(_ material: [String: String]) throws(JPushError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings always encode; were they ever not to, the upload fails rather than storing a broken secret.
        guard let data = try? encoder.encode(material) else { throw JPushError.internalError("the credential could not be stored") }
        return [UInt8](data)
    }

    public static func isBundleID(_ topic: String) -> Bool {
        !topic.isEmpty && topic.utf8.count <= 255 && topic.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "." || $0 == "-" || $0 == "_"
        }
    }

    public static func isAppleIdentifier(_ value: String) -> Bool {
        value.utf8.count == 10 && value.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) }
    }
}
