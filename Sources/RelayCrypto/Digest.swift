import CSystem

/// Hashing and comparison helpers for values that must not leak through timing.
public enum Digest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "SHA-256 failed")
        return output
    }

    /// Compares two secrets without revealing where they differ: both are hashed first,
    /// so the comparison also takes the same time whatever their lengths.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let left = sha256(a)
        let right = sha256(b)
        return CRYPTO_memcmp(left, right, 32) == 0
    }
}
