import CSystem
import Foundation

/// A P-256 key made in the test with OpenSSL, and ES256 JWTs signed by it the way a
/// provider does (DER signature → raw r‖s, base64url).
final class TestSigningKey: @unchecked Sendable {
    let key: OpaquePointer

    init() {
        let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)!
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        precondition(EVP_PKEY_keygen_init(context) == 1)
        precondition(EVP_PKEY_CTX_set_group_name(context, "P-256") == 1)
        precondition(EVP_PKEY_generate(context, &generated) == 1)
        key = generated!
    }

    deinit { EVP_PKEY_free(key) }

    var publicPEM: String { pem { PEM_write_bio_PUBKEY($0, key) } }
    var privatePEM: String { pem { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) } }

    private func pem(_ write: (OpaquePointer) -> Int32) -> String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        precondition(write(bio) == 1)
        var data: UnsafeMutablePointer<CChar>?
        let length = CSystem_BIO_get_mem_data(bio, &data)
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// `header.claims.signature` for `{"alg":"ES256","kid":kid}` / `{"iss":team,"iat":iat}`.
    func jwt(keyID: String, issuedAt: Int64, team: String = "TEAM123456", alg: String = "ES256") -> String {
        let header = Self.base64URL(Array(#"{"alg":"\#(alg)","kid":"\#(keyID)"}"#.utf8))
        let claims = Self.base64URL(Array(#"{"iss":"\#(team)","iat":\#(issuedAt)}"#.utf8))
        let input = Array("\(header).\(claims)".utf8)
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1)
        var length = 0
        precondition(EVP_DigestSign(context, nil, &length, input, input.count) == 1)
        var der = [UInt8](repeating: 0, count: length)
        precondition(EVP_DigestSign(context, &der, &length, input, input.count) == 1)
        var raw = [UInt8](repeating: 0, count: 64)
        der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let signature = d2i_ECDSA_SIG(nil, &cursor, length)!
            defer { ECDSA_SIG_free(signature) }
            raw.withUnsafeMutableBufferPointer { out in
                _ = BN_bn2binpad(ECDSA_SIG_get0_r(signature), out.baseAddress, 32)
                _ = BN_bn2binpad(ECDSA_SIG_get0_s(signature), out.baseAddress! + 32, 32)
            }
        }
        return "\(header).\(claims).\(Self.base64URL(raw))"
    }
}
