import APNSClient
import Foundation
import RelayCore

/// Reads the token endpoint's answer (RFC 6749 §5): `{"access_token","expires_in","token_type"}`,
/// or `{"error","error_description"}`. An error that names the credential (`invalid_grant`,
/// `invalid_client`, `unauthorized_client`, any 401/403) marks it broken; the rest
/// (unreachable, 429, 5xx) is worth trying again.
enum TokenAnswer {
    static func read(_ answer: HTTP2Answer) -> Result<(token: String, expiresIn: TimeInterval), FCMFailure> {
        guard case let .response(response) = answer else {
            if case let .failed(failure) = answer { return .failure(.accessToken("token endpoint: \(failure)", broken: false)) }
            return .failure(.accessToken("token endpoint: no answer", broken: false))
        }
        let body = try? JSONDecoder().decode(Body.self, from: Data(response.body))
        if response.status == 200 {
            guard let token = body?.accessToken, !token.isEmpty else {
                return .failure(.accessToken("token endpoint answered 200 without access_token", broken: false))
            }
            return .success((token, max(0, body?.expiresIn ?? 3600)))
        }
        let error = body?.error ?? ""
        let description = body?.errorDescription ?? ""
        let broken = ["invalid_grant", "invalid_client", "unauthorized_client", "invalid_scope"].contains(error)
            || response.status == 401 || response.status == 403
        let detail = [error, description].filter { !$0.isEmpty }.joined(separator: ": ")
        return .failure(.accessToken("token endpoint answered \(response.status)\(detail.isEmpty ? "" : " (\(detail))")", broken: broken))
    }

    /// Either answer's fields.
    private struct Body: Decodable {
        @Lenient var accessToken: String?
        @Lenient var expiresIn: Double?
        @Lenient var error: String?
        @Lenient var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case error
            case errorDescription = "error_description"
        }
    }
}
