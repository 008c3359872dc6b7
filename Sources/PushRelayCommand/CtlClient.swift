import Foundation
import RelayCore
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

    /// Calls the API and returns the parsed JSON body of a 2xx answer.
    ///
    /// - Parameters:
    ///   - json: the request body as JSON; or `raw` bytes with `contentType`.
    func call(_ method: String, _ path: String, auth: Auth, json: JSONValue? = nil, raw: Data? = nil,
              contentType: String = "application/json") async throws(CtlError) -> JSONValue {
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
            request.httpBody = Data(CanonicalJSON.bytes(json))
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
        let decoded = try? JSONValue.parse([UInt8](data))
        guard (200..<300).contains(status) else { throw CtlError.http(status: status, body: decoded) }
        guard let decoded else { throw .failed("the relay answered HTTP \(status) without JSON") }
        return decoded
    }

    /// `call`, expecting a JSON object.
    func object(_ method: String, _ path: String, auth: Auth, json: JSONValue? = nil) async throws(CtlError) -> JSONValue {
        let answer = try await call(method, path, auth: auth, json: json)
        guard case .object = answer else { throw .failed("the relay's answer to \(method) \(path) is not a JSON object") }
        return answer
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
