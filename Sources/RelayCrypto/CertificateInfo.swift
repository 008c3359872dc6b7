import Foundation

/// What an accepted APNs client certificate says about itself.
public struct CertificateInfo: Sendable, Equatable {
    /// The subject as RFC 2253 text, e.g. `C=US,O=Apple Inc.,CN=Apple Push Services: com.example.app,UID=com.example.app`.
    public var subject: String
    public var notAfter: Date
    public var notBefore: Date
    /// The subject's UID attribute, where Apple puts the bundle id a push certificate is for.
    public var topic: String?

    public init(subject: String, notAfter: Date, notBefore: Date, topic: String?) {
        self.subject = subject
        self.notAfter = notAfter
        self.notBefore = notBefore
        self.topic = topic
    }
}
