import RelayCore
import RelayCrypto

/// Checks `Authorization: Bearer <admin token>` for `/admin/v1`, in constant time.
struct AdminAuthorizer: Sendable {
    let token: [UInt8]

    init(token: String) {
        self.token = Array(token.utf8)
    }

    func authorize(_ authorization: String?) throws(JPushError) {
        guard let presented = Self.bearerToken(authorization) else {
            throw JPushError.authenticationFailed("admin API needs Authorization: Bearer <admin token>")
        }
        guard Digest.constantTimeEqual(Array(presented.utf8), token) else {
            throw JPushError.authenticationFailed("admin token is wrong")
        }
    }

    /// The token of `Authorization: Bearer <token>`, nil for any other header.
    static func bearerToken(_ authorization: String?) -> String? {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return nil }
        return authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
    }
}
