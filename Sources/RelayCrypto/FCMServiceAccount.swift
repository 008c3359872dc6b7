import CSystem
import Foundation
import RelayCore

/// A Firebase service-account key file, as the Firebase console downloads it, checked: what
/// `PUT /admin/v1/apps/{app_key}/fcm` stores and what the FCM client signs its OAuth2
/// assertions with.
public struct FCMServiceAccount: Sendable, Equatable {
    public var projectID: String
    public var clientEmail: String
    /// The JWT `kid`; Google accepts assertions without it, so it may be empty.
    public var privateKeyID: String
    /// The RSA key, re-encoded as unencrypted PKCS#8 PEM.
    public var privateKeyPEM: String
    /// Where access tokens are obtained: always the file's, never a hard-coded host.
    public var tokenURI: String
    public var clientID: String

    /// Google's token endpoint, the file's `token_uri` in practice.
    public static let googleTokenURI = "https://oauth2.googleapis.com/token"

    public init(projectID: String, clientEmail: String, privateKeyID: String, privateKeyPEM: String,
                tokenURI: String = FCMServiceAccount.googleTokenURI, clientID: String = "") {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.privateKeyPEM = privateKeyPEM
        self.tokenURI = tokenURI
        self.clientID = clientID
    }

    /// Parses and checks a key file.
    ///
    /// - Parameter json: the file's bytes.
    /// - Throws: naming the first field that is missing or wrong (never key material).
    public static func parse(_ json: [UInt8]) throws(CredentialError) -> FCMServiceAccount {
        guard case let .object(object)? = try? JSONValue.parse(json) else {
            throw CredentialError("the body is not a JSON object (upload the service-account key file as downloaded from the Firebase console)")
        }
        func text(_ field: String, required: Bool = true) throws(CredentialError) -> String {
            guard let value = object[field] else {
                if required { throw CredentialError("\(field) is missing") }
                return ""
            }
            guard case let .string(string) = value else { throw CredentialError("\(field) must be a string") }
            if required, string.trimmingCharacters(in: .whitespaces).isEmpty { throw CredentialError("\(field) is empty") }
            return string
        }
        let type = try text("type")
        guard type == "service_account" else {
            throw CredentialError("type is \"\(type)\"; FCM needs a service-account key file (type \"service_account\")")
        }
        let projectID = try text("project_id")
        guard projectID.utf8.allSatisfy({ $0.isProjectIDByte }) else {
            throw CredentialError("project_id may hold only letters, digits, '-', '.' and ':'")
        }
        let clientEmail = try text("client_email")
        guard clientEmail.contains("@") else { throw CredentialError("client_email is not an e-mail address") }
        let tokenURI = try text("token_uri", required: false)
        if !tokenURI.isEmpty {
            guard let url = URL(string: tokenURI), url.scheme == "https", url.host?.isEmpty == false else {
                throw CredentialError("token_uri must be an https:// URL")
            }
        }
        let keyPEM = try rsaKey(try text("private_key"))
        return FCMServiceAccount(
            projectID: projectID, clientEmail: clientEmail, privateKeyID: try text("private_key_id", required: false),
            privateKeyPEM: keyPEM, tokenURI: tokenURI.isEmpty ? googleTokenURI : tokenURI,
            clientID: try text("client_id", required: false))
    }

    /// The account as a key file again (the fields this type keeps), for storing sealed.
    public var json: [UInt8] {
        // Strings only: encoding cannot fail.
        (try? JSONAnswer.bytes(KeyFile(account: self))) ?? []
    }

    /// The key file's fields, as Google names them.
    private struct KeyFile: Encodable {
        var type = "service_account"
        var projectID: String
        var privateKeyID: String
        var privateKey: String
        var clientEmail: String
        var clientID: String
        var tokenURI: String

        init(account: FCMServiceAccount) {
            projectID = account.projectID
            privateKeyID = account.privateKeyID
            privateKey = account.privateKeyPEM
            clientEmail = account.clientEmail
            clientID = account.clientID
            tokenURI = account.tokenURI
        }

        enum CodingKeys: String, CodingKey {
            case type
            case projectID = "project_id"
            case privateKeyID = "private_key_id"
            case privateKey = "private_key"
            case clientEmail = "client_email"
            case clientID = "client_id"
            case tokenURI = "token_uri"
        }
    }

    /// Checks that `pem` is an RSA private key of at least 2048 bits and re-encodes it.
    private static func rsaKey(_ pem: String) throws(CredentialError) -> String {
        defer { OpenSSLSupport.clearErrors() }
        let key = try PrivateKey(pem: pem, field: "private_key")
        guard EVP_PKEY_get_base_id(key.pointer) == EVP_PKEY_RSA else {
            throw CredentialError("private_key is \(key.kindDescription); a service account's key is RSA")
        }
        guard EVP_PKEY_get_bits(key.pointer) >= 2048 else {
            throw CredentialError("private_key has \(EVP_PKEY_get_bits(key.pointer)) bits; RS256 needs at least 2048")
        }
        guard let normalised = key.pem else { throw CredentialError("private_key could not be re-encoded as PEM") }
        return normalised
    }
}

extension UInt8 {
    /// Google project ids are lower-case letters, digits and hyphens; older "domain:name" ids add '.' and ':'.
    fileprivate var isProjectIDByte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
            || self == UInt8(ascii: "-") || self == UInt8(ascii: ".") || self == UInt8(ascii: ":")
    }
}
