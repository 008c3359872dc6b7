import CSystem

/// A webhook's signing secret and the signature of each request (issue 28):
/// `X-PushRelay-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`.
/// The secret's UTF-8 text is the HMAC key; the relay keeps it sealed (the delivery workers
/// open it to sign), bound to the app's key.
public enum WebhookSignature {
    public static let headerName = "X-PushRelay-Signature"

    /// A new secret: `whsec_` and 64 hex digits (256 random bits).
    public static func issueSecret() -> String { "whsec_" + SecureRandom.hex(32) }

    /// What the sealed secret is bound to: a blob copied to another app's row does not open.
    public static func associatedData(appKey: String) -> [UInt8] { Array("webhook-secret:\(appKey)".utf8) }

    /// The header's value for `body` sent at `timestamp` (Unix seconds).
    public static func header(secret: [UInt8], timestamp: Int64, body: [UInt8]) -> String {
        "t=\(timestamp),v1=" + Hex.encode(hmacSHA256(key: secret, message: Array("\(timestamp).".utf8) + body))
    }

    /// HMAC-SHA256 (OpenSSL's EVP_Q_mac).
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        let result = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, key.baseAddress, key.count,
                          message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, &output, output.count, &length)
            }
        }
        precondition(result != nil && length == 32, "HMAC-SHA256 failed")
        return output
    }
}
