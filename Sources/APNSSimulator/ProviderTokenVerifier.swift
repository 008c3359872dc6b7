import APNSClient
import CSystem
import Foundation
import RelayCore

/// Checks the `authorization: bearer <jwt>` header the way APNs does for token-based
/// provider authentication.
///
/// The rules, in order:
/// - `acceptAnyToken`: every request passes, with or without a token (benchmarks).
/// - No keys configured (certificate mode): a request without `authorization` passes;
///   one with a token is 403 InvalidProviderToken, since no key can vouch for it.
/// - Keys configured: no token is 403 MissingProviderToken; a token that is malformed,
///   not ES256, names an unknown `kid`, lacks `iss`/`iat` or has a bad signature is 403
///   InvalidProviderToken; a valid token whose `iat` is more than an hour old is 403
///   ExpiredProviderToken; a new token on a connection whose previous token was issued
///   less than 20 minutes before it is 429 TooManyProviderTokenUpdates (the previous one
///   stays in force; a token re-signed with the same `iat` counts as the same token).
///
/// Thread rule: the keys are loaded in `init` and only read afterwards; OpenSSL allows one
/// `EVP_PKEY` to verify on several threads at once, each with its own digest context.
public final class ProviderTokenVerifier: @unchecked Sendable {
    /// How long a token stays valid after its `iat`.
    public static let tokenLifetime: Int64 = 3600
    /// The least time between the `iat`s of two tokens used on one connection.
    public static let minimumRefreshInterval: Int64 = 1200

    public let acceptAnyToken: Bool
    private let keys: [String: OpaquePointer]

    /// True when requests must carry a valid token.
    public var requiresToken: Bool { !acceptAnyToken && !keys.isEmpty }

    /// - Parameters:
    ///   - pemKeys: key id → PEM text of a P-256 public key (or of the private key).
    ///   - acceptAnyToken: let every request through.
    public init(pemKeys: [String: String], acceptAnyToken: Bool) throws {
        var loaded: [String: OpaquePointer] = [:]
        for (keyID, pem) in pemKeys {
            guard let key = ProviderTokenVerifier.loadKey(pem: pem) else {
                for key in loaded.values { EVP_PKEY_free(key) }
                throw APNSSimulatorError("JWT key \(keyID) is not a P-256 public or private key in PEM")
            }
            loaded[keyID] = key
        }
        self.keys = loaded
        self.acceptAnyToken = acceptAnyToken
    }

    deinit {
        for key in keys.values { EVP_PKEY_free(key) }
    }

    /// The reason to refuse the request, or `nil` to let it through.
    ///
    /// - Parameters:
    ///   - authorization: the `authorization` header, if any.
    ///   - now: Unix seconds.
    ///   - cache: the connection's last verified token, so a token reused on a connection
    ///     (the normal case) costs a string comparison rather than an ECDSA verification.
    public func check(authorization: String?, now: Int64, cache: inout ProviderTokenCache) -> APNSReason? {
        if acceptAnyToken { return nil }
        guard let authorization else { return keys.isEmpty ? nil : .missingProviderToken }
        if keys.isEmpty { return .invalidProviderToken }
        let issuedAt: Int64
        if let cached = cache.token, cached == authorization {
            issuedAt = cache.issuedAt
        } else {
            switch verify(authorization: authorization) {
            case .failure(let reason): return reason
            case .success(let iat):
                if cache.token != nil, iat != cache.issuedAt,
                   abs(iat - cache.issuedAt) < ProviderTokenVerifier.minimumRefreshInterval {
                    return .tooManyProviderTokenUpdates
                }
                issuedAt = iat
                cache = ProviderTokenCache(token: authorization, issuedAt: iat)
            }
        }
        return now - issuedAt > ProviderTokenVerifier.tokenLifetime ? .expiredProviderToken : nil
    }

    /// Checks the form and signature of `bearer <jwt>` and returns its `iat`.
    public func verify(authorization: String) -> Result<Int64, APNSReason> {
        let scheme = "bearer "
        guard authorization.utf8.count > scheme.utf8.count,
              authorization.prefix(scheme.count).lowercased() == scheme else { return .failure(.invalidProviderToken) }
        let jwt = Array(authorization.utf8.dropFirst(scheme.utf8.count))
        let parts = jwt.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]),
              let claimsBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONDecoder().decode(TokenHeader.self, from: Data(headerBytes)),
              let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(claimsBytes)),
              header.alg == "ES256",
              let key = keys[header.kid]
        else { return .failure(.invalidProviderToken) }
        let issuedAt = claims.iat
        let signingInput = jwt[..<(parts[1].endIndex)]
        guard ProviderTokenVerifier.verifyES256(key: key, signingInput: Array(signingInput), signature: signature) else {
            return .failure(.invalidProviderToken)
        }
        return .success(issuedAt)
    }

    /// The JWT header APNs requires: the algorithm and the key's id.
    private struct TokenHeader: Decodable {
        var alg: String
        var kid: String
    }

    /// The JWT claims APNs requires: the team (`iss`) and when the token was issued.
    private struct TokenClaims: Decodable {
        var iss: String
        var iat: Int64
    }

    /// ES256: ECDSA P-256 over SHA-256, with the JWT's raw `r‖s` signature turned into the
    /// DER `ECDSA_SIG` OpenSSL verifies.
    static func verifyES256(key: OpaquePointer, signingInput: [UInt8], signature: [UInt8]) -> Bool {
        guard signature.count == 64, let ecdsa = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(ecdsa) }
        let (r, s) = signature.withUnsafeBufferPointer { raw in
            (BN_bin2bn(raw.baseAddress, 32, nil), BN_bin2bn(raw.baseAddress! + 32, 32, nil))
        }
        guard let r, let s, ECDSA_SIG_set0(ecdsa, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return false
        }
        var der: UnsafeMutablePointer<UInt8>?
        let derLength = i2d_ECDSA_SIG(ecdsa, &der)
        guard derLength > 0, let der else { return false }
        defer { CSystem_OPENSSL_free(der) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let verified = signingInput.withUnsafeBufferPointer { input in
            EVP_DigestVerify(context, der, Int(derLength), input.baseAddress, input.count)
        }
        ERR_clear_error()
        return verified == 1
    }

    /// A P-256 key from PEM: a public key, or a private key (whose public half is used).
    static func loadKey(pem: String) -> OpaquePointer? {
        func read(_ reader: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
            let bytes = Array(pem.utf8)
            return bytes.withUnsafeBytes { raw in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
                defer { BIO_free(bio) }
                return reader(bio)
            }
        }
        let key = read { PEM_read_bio_PUBKEY($0, nil, nil, nil) }
            ?? read { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        ERR_clear_error()
        guard let key else { return nil }
        guard CSystem_EVP_PKEY_is_P256(key) == 1 else {
            EVP_PKEY_free(key)
            return nil
        }
        return key
    }
}

/// The last token a connection verified, kept so the same token is not verified again.
public struct ProviderTokenCache: Sendable, Equatable {
    public var token: String?
    public var issuedAt: Int64

    public init(token: String? = nil, issuedAt: Int64 = 0) {
        self.token = token
        self.issuedAt = issuedAt
    }
}
