import CSystem

/// Why a `SecretBox` could not be made or could not open a sealed value.
///
/// Messages never contain key material or plaintext.
public struct SecretBoxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Seals secret material at rest (APNs keys, certificates) with AES-256-GCM.
///
/// Sealed form: version byte ‖ 12-byte random nonce ‖ ciphertext ‖ 16-byte tag. The
/// version byte is authenticated along with the caller's associated data, so a value
/// sealed for one row (say, associated data = the app key) does not open for another.
public struct SecretBox: Sendable {
    static let version: UInt8 = 1
    static let keyLength = 32
    static let nonceLength = 12
    static let tagLength = 16

    private let key: [UInt8]

    /// - Parameter key: exactly 32 bytes.
    public init(key: [UInt8]) throws {
        guard key.count == Self.keyLength else {
            throw SecretBoxError("secret key must be \(Self.keyLength) bytes, got \(key.count)")
        }
        self.key = key
    }

    /// Encrypts `plaintext` under a fresh random nonce.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8] = []) -> [UInt8] {
        let nonce = SecureRandom.bytes(Self.nonceLength)
        guard let (ciphertext, tag) = crypt(encrypt: true, plaintext, nonce: nonce,
                                            associatedData: associatedData, tag: nil) else {
            // AES-GCM with a valid key and nonce length has no failure mode of its own.
            fatalError("AES-256-GCM encryption failed")
        }
        return [Self.version] + nonce + ciphertext + tag
    }

    /// Decrypts what `seal` made with the same key and associated data.
    ///
    /// - Throws: `SecretBoxError` when the value is truncated, of an unknown version, was
    ///   altered, or was sealed under another key or other associated data.
    public func open(_ sealed: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        guard sealed.count >= 1 + Self.nonceLength + Self.tagLength else {
            throw SecretBoxError("sealed value is too short")
        }
        guard sealed[0] == Self.version else {
            throw SecretBoxError("sealed value has unknown version \(sealed[0])")
        }
        let nonce = Array(sealed[1 ..< 1 + Self.nonceLength])
        let ciphertext = Array(sealed[1 + Self.nonceLength ..< sealed.count - Self.tagLength])
        let tag = Array(sealed[(sealed.count - Self.tagLength)...])
        guard let (plaintext, _) = crypt(encrypt: false, ciphertext, nonce: nonce,
                                         associatedData: associatedData, tag: tag) else {
            throw SecretBoxError("sealed value does not open: wrong key, wrong associated data, or altered")
        }
        return plaintext
    }

    /// One AES-256-GCM pass. Encrypting returns the tag; decrypting checks `tag`.
    private func crypt(encrypt: Bool, _ input: [UInt8], nonce: [UInt8], associatedData: [UInt8],
                       tag: [UInt8]?) -> ([UInt8], [UInt8])? {
        guard let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        defer { ERR_clear_error() }
        let mode: Int32 = encrypt ? 1 : 0
        // The default GCM nonce length is the 12 bytes we use.
        guard EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce, mode) == 1 else { return nil }

        var length: Int32 = 0
        let aad = [Self.version] + associatedData
        guard EVP_CipherUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1 else { return nil }

        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written = 0
        if !input.isEmpty {
            guard EVP_CipherUpdate(ctx, &output, &length, input, Int32(input.count)) == 1 else { return nil }
            written = Int(length)
        }
        var tagBytes = tag ?? [UInt8](repeating: 0, count: Self.tagLength)
        if !encrypt {
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), &tagBytes) == 1 else { return nil }
        }
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(ctx, buffer.baseAddress! + written, &length)
        }
        guard finished == 1 else { return nil }
        written += Int(length)
        if encrypt {
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), &tagBytes) == 1 else { return nil }
        }
        return (Array(output[..<written]), tagBytes)
    }
}
