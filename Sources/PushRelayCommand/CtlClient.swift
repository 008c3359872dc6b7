import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The relay's REST API as ctl calls it: admin routes with the bearer token, `/v3` routes
/// with the app's Basic credentials; answers decoded from JSON, failures as `CtlError`.
struct CtlClient: Sendable {
    enum Auth: Sendable {
        case admin
        case app
    }

    let baseURL: String
    let adminToken: String?
    let appKey: String?
    let appSecret: String?

    /// Calls the API and returns the decoded JSON body of a 2xx answer.
    ///
    /// - Parameters:
    ///   - body: JSON (an object or array), or raw bytes with `contentType`.
    func call(_ method: String, _ path: String, auth: Auth, json: Any? = nil, raw: Data? = nil,
              contentType: String = "application/json") async throws(CtlError) -> Any {
        guard let url = URL(string: baseURL.trimmingSuffix("/") + path) else { throw .usage("bad --url \(baseURL)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 120
        switch auth {
        case .admin:
            guard let adminToken, !adminToken.isEmpty else {
                throw .usage("this command needs the admin token: --admin-token or PUSHRELAY_ADMIN_TOKEN")
            }
            request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
        case .app:
            guard let appKey, let appSecret, !appKey.isEmpty, !appSecret.isEmpty else {
                throw .usage("this command needs the app's credentials: --app-key and --app-secret, or PUSHRELAY_APP_KEY and PUSHRELAY_APP_SECRET")
            }
            request.setValue("Basic " + Data("\(appKey):\(appSecret)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        if let json {
            do { request.httpBody = try JSONSerialization.data(withJSONObject: json) } catch { throw .failed("cannot encode the request: \(error)") }
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let raw {
            request.httpBody = raw
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw .unreachable("cannot reach the relay at \(baseURL): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let decoded = data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        guard (200..<300).contains(status) else { throw CtlError.http(status: status, body: decoded as? [String: Any]) }
        guard let decoded else { throw .failed("the relay answered HTTP \(status) without JSON") }
        return decoded
    }

    /// `call`, expecting a JSON object.
    func object(_ method: String, _ path: String, auth: Auth, json: Any? = nil) async throws(CtlError) -> [String: Any] {
        guard let object = try await call(method, path, auth: auth, json: json) as? [String: Any] else {
            throw .failed("the relay's answer to \(method) \(path) is not a JSON object")
        }
        return object
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }

    /// Percent-encoded for one path segment or query value.
    var urlComponent: String {
        addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? self
    }
}
