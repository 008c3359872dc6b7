import Foundation

/// Why an uploaded APNs credential was refused, in words the uploader can act on
/// ("certificate expired on 2024-01-01T00:00:00Z"). Never contains key material.
public struct CredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
