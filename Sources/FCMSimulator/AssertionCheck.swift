import Foundation
import RelayCore
import RelayCrypto

/// What Google's token endpoint checks of a JWT-bearer assertion (RFC 7523): RS256 by a
/// known service account's key, `scope` for FCM, `aud` the token endpoint, and an `iat`/`exp`
/// window of at most an hour around now.
struct AssertionCheck: Sendable {
    struct Account: Sendable {
        var projectID: String
        var verifier: RS256Verifier
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Clock skew tolerated on `iat`.
    static let skew: Int64 = 300

    /// Keyed by `client_email`.
    let accounts: [String: Account]

    /// - Returns: the account's project, or the OAuth2 error (`invalid_grant` …) and why.
    func check(assertion: String, nowSeconds: Int64) -> Result<String, AssertionRefusal> {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0].utf8), let claimsBytes = Base64URL.decode(parts[1].utf8),
              let signature = Base64URL.decode(parts[2].utf8),
              let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
              let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimsBytes)) else {
            return .failure(AssertionRefusal(error: "invalid_grant", description: "Invalid JWT: malformed"))
        }
        guard header.alg == "RS256" else { return .failure(AssertionRefusal(error: "invalid_grant", description: "Invalid JWT: alg must be RS256")) }
        guard let account = accounts[claims.iss] else {
            return .failure(AssertionRefusal(error: "invalid_grant", description: "Invalid JWT Signature: unknown issuer"))
        }
        guard account.verifier.isValid(signature: signature, for: Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)) else {
            return .failure(AssertionRefusal(error: "invalid_grant", description: "Invalid JWT Signature."))
        }
        guard claims.scope.split(separator: " ").contains(Substring(Self.scope)) else {
            return .failure(AssertionRefusal(error: "invalid_scope", description: "firebase.messaging scope missing"))
        }
        guard claims.aud.hasSuffix("/token") else {
            return .failure(AssertionRefusal(error: "invalid_grant", description: "Invalid JWT: aud is not the token endpoint"))
        }
        guard claims.iat <= nowSeconds + Self.skew, claims.exp > nowSeconds, claims.exp - claims.iat <= 3600 else {
            return .failure(AssertionRefusal(error: "invalid_grant", description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."))
        }
        return .success(account.projectID)
    }

    private struct Header: Decodable {
        var alg: String
    }

    private struct Claims: Decodable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int64
        var exp: Int64
    }
}

/// An OAuth2 error answer: `{"error": …, "error_description": …}`, 400.
struct AssertionRefusal: Error, Sendable, Equatable {
    var error: String
    var description: String
}
