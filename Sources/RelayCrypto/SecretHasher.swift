import CSystem
import Foundation

/// Master secrets at rest: a salted, slow PBKDF2-HMAC-SHA256 hash, checked in constant time.
///
/// The stored form is `pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`, so the
/// iteration count can be raised later without invalidating older hashes.
public enum SecretHasher {
    private static let scheme = "pbkdf2-sha256"
    private static let saltLength = 16
    private static let hashLength = 32
    /// Bounds on what `verify` accepts from a stored string, so a corrupt row cannot make
    /// one check run for minutes.
    private static let iterationRange = 1...10_000_000

    /// Hashes `secret` with a fresh 16-byte random salt.
    ///
    /// - Parameters:
    ///   - secret: the secret as the client sends it.
    ///   - iterations: PBKDF2 rounds; the default follows current guidance for SHA-256.
    public static func hash(_ secret: String, iterations: Int = 120_000) -> String {
        precondition(iterationRange.contains(iterations), "SecretHasher.hash: iterations out of range")
        let salt = SecureRandom.bytes(saltLength)
        guard let derived = derive(secret, salt: salt, iterations: iterations, length: hashLength) else {
            fatalError("PKCS5_PBKDF2_HMAC failed")
        }
        let encodedSalt = Data(salt).base64EncodedString()
        let encodedHash = Data(derived).base64EncodedString()
        return "\(scheme)$\(iterations)$\(encodedSalt)$\(encodedHash)"
    }

    /// True when `secret` hashes to `stored`; false for any other secret and for a stored
    /// string that is not one `hash` could have made.
    public static func verify(_ secret: String, against stored: String) -> Bool {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == scheme,
              let iterations = Int(fields[1]), iterationRange.contains(iterations),
              let salt = Data(base64Encoded: String(fields[2])), (8...64).contains(salt.count),
              // Exactly our length: PBKDF2's shorter outputs are prefixes of longer ones, so a
              // truncated hash would otherwise still verify.
              let expected = Data(base64Encoded: String(fields[3])), expected.count == hashLength
        else { return false }
        guard let derived = derive(secret, salt: [UInt8](salt), iterations: iterations, length: hashLength) else {
            return false
        }
        let expectedBytes = [UInt8](expected)
        return derived.withUnsafeBytes { lhs in
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
