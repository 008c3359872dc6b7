import Foundation
import RelayCore
import RelayCrypto

/// The JWT a service account sends to its token endpoint (RFC 7523): RS256, `kid` the key's
/// id, claims `iss` = client_email, `scope`, `aud` = token_uri, `iat`, `exp` = iat + 1 h.
enum OAuthAssertion {
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let lifetime: TimeInterval = 3600

    static func make(account: FCMServiceAccount, scope: String, issuedAt: Date, signer: RS256Signer) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = try encoder.encode(Header(kid: account.privateKeyID.isEmpty ? nil : account.privateKeyID))
        let iat = Int(issuedAt.timeIntervalSince1970)
        let claims = try encoder.encode(Claims(iss: account.clientEmail, scope: scope, aud: account.tokenURI,
                                               iat: iat, exp: iat + Int(lifetime)))
        let signingInput = Base64URL.encode(Array(header)) + "." + Base64URL.encode(Array(claims))
        return signingInput + "." + Base64URL.encode(try signer.sign(Array(signingInput.utf8)))
    }

    struct Header: Codable {
        var alg = "RS256"
        var typ = "JWT"
        var kid: String?
    }

    struct Claims: Codable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int
    }
}

extension String {
    /// `application/x-www-form-urlencoded` for a value: unreserved characters kept, the rest %-escaped.
    var formEncoded: String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
