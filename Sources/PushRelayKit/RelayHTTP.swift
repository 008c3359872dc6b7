import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The plumbing both clients share: a request to a path under the relay's base URL with a
/// JSON body, and the answer read back as JSON or as the `PushRelayError` it stands for.
struct RelayHTTP: Sendable {
    let baseURL: URL
    let transport: any HTTPTransport

    /// An empty 200 body.
    struct Empty: Decodable {}

    private struct NoBody: Encodable {}

    /// A path segment with everything but unreserved characters percent-encoded.
    static func segment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }

    func request(_ method: String, _ path: String, query: [String: String] = [:], authorization: String) throws(PushRelayError) -> URLRequest {
        try request(method, path, query: query, body: Optional<NoBody>.none, authorization: authorization)
    }

    func request<Body: Encodable>(_ method: String, _ path: String, query: [String: String] = [:], body: Body?,
                                  authorization: String) throws(PushRelayError) -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw .transport("bad base URL \(baseURL)")
        }
        let basePath = components.percentEncodedPath
        components.percentEncodedPath = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + path
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        guard let url = components.url else { throw .transport("bad URL \(baseURL)\(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                request.httpBody = try encoder.encode(body)
            } catch {
                throw .transport("cannot encode the request: \(error)")
            }
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    func send<Reply: Decodable>(_ request: URLRequest) async throws(PushRelayError) -> Reply {
        let data: Data
        let response: HTTPURLResponse
        do {
            (data, response) = try await transport.send(request)
        } catch let error as PushRelayError {
            throw error
        } catch is CancellationError {
            throw .transport("cancelled")
        } catch {
            throw .transport(String(describing: error))
        }
        guard response.statusCode == 200 else { throw PushRelayError.from(status: response.statusCode, body: data) }
        if Reply.self == Empty.self, let empty = Empty() as? Reply { return empty }
        do {
            return try JSONDecoder().decode(Reply.self, from: data)
        } catch {
            throw .unreadableResponse(status: response.statusCode, body: String(decoding: data, as: UTF8.self))
        }
    }
}
