import CSystem
import Foundation

/// Master secrets at rest, checked in constant time.
///
/// The relay issues every master secret itself (96 random bits), so a salted SHA-256 guards
/// a stolen table as well as any slow hash would (2^96 guesses a secret), and a check costs
/// microseconds. A slow hash would instead hand every request with a wrong secret (or an
/// unknown key, which must cost the same) ~27 ms of the relay's CPU. The stored form is
/// `sha256$<salt base64>$<hash base64>`.
///
/// Hashes of the earlier scheme, `pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`,
/// still verify (`isSlow`: callers run those off the event loops) until the app's secret is
/// rotated.
public enum SecretHasher {
    private static let scheme = "sha256"
    private static let slowScheme = "pbkdf2-sha256"
    private static let saltLength = 16
    private static let hashLength = 32
    /// Bounds on what `verify` accepts from a stored slow hash, so a corrupt row cannot make
    /// one check run for minutes.
    private static let iterationRange = 1...10_000_000

    /// Hashes `secret` with a fresh 16-byte random salt.
    public static func hash(_ secret: String) -> String {
        let salt = SecureRandom.bytes(saltLength)
        let digest = Digest.sha256(salt + Array(secret.utf8))
        return "\(scheme)$\(Data(salt).base64EncodedString())$\(Data(digest).base64EncodedString())"
    }

    /// Whether checking a secret against `stored` takes the earlier scheme's slow hash.
    public static func isSlow(_ stored: String) -> Bool {
        stored.hasPrefix(slowScheme + "$")
    }

    /// True when `secret` hashes to `stored`; false for any other secret and for a stored
    /// string that neither scheme could have made.
    public static func verify(_ secret: String, against stored: String) -> Bool {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        let computed: [UInt8]?
        let expected: Data?
        switch (fields.first, fields.count) {
        case (Substring(scheme)?, 3):
            guard let salt = Data(base64Encoded: String(fields[1])), salt.count == saltLength else { return false }
            computed = Digest.sha256([UInt8](salt) + Array(secret.utf8))
            expected = Data(base64Encoded: String(fields[2]))
        case (Substring(slowScheme)?, 4):
            guard let iterations = Int(fields[1]), iterationRange.contains(iterations),
                  let salt = Data(base64Encoded: String(fields[2])), (8...64).contains(salt.count) else { return false }
            computed = derive(secret, salt: [UInt8](salt), iterations: iterations, length: hashLength)
            expected = Data(base64Encoded: String(fields[3]))
        default:
            return false
        }
        // Exactly our length: PBKDF2's shorter outputs are prefixes of longer ones, so a
        // truncated hash would otherwise still verify.
        guard let computed, let expected, expected.count == hashLength else { return false }
        let expectedBytes = [UInt8](expected)
        return computed.withUnsafeBytes { lhs in
            expectedBytes.withUnsafeBytes { rhs in
                CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
            }
        }
    }

    private static func derive(_ secret: String, salt: [UInt8], iterations: Int, length: Int) -> [UInt8]? {
        let password = Array(secret.utf8)
        var out = [UInt8](repeating: 0, count: length)
        let ok = password.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { salt in
                out.withUnsafeMutableBufferPointer { out in
                    pass.withMemoryRebound(to: CChar.self) { pass in
                        PKCS5_PBKDF2_HMAC(pass.baseAddress, Int32(pass.count),
                                          salt.baseAddress, Int32(salt.count),
                                          Int32(iterations), EVP_sha256(),
                                          Int32(length), out.baseAddress)
                    }
                }
            }
        }
        guard ok == 1 else {
            ERR_clear_error()
            return nil
        }
        return out
    }
}
