import CSystem
import EventLoops
import Foundation
import RelayCore

/// The plain-HTTP control endpoint: an `evhttp` on one loop of the simulator's group,
/// answering from the recorder (see `ControlRoute`).
///
/// Thread rule: built and bound on the starting thread with its listener not accepting
/// yet, then handed to its loop as a `LoopBound` and used only on the loop's thread from
/// `start()` on; `close()` frees it there.
package final class ControlServer {
    /// Routes a simulator adds to the shared ones: the status and JSON body for a method,
    /// path and request body it knows, nil for the rest (404). Called on the control loop.
    package typealias Routes = @Sendable (_ method: String, _ path: String, _ body: [UInt8]) -> (status: Int32, body: [UInt8])?

    let loop: EventLoop
    private let routes: Routes?
    private let recorder: SimulatorRecorder
    private let rates: LiveSetting<FailureRates>
    private let network: LiveSetting<NetworkShape>
    private let http: OpaquePointer
    private var boundSocket: OpaquePointer?

    init(recorder: SimulatorRecorder, rates: LiveSetting<FailureRates>, network: LiveSetting<NetworkShape>, routes: Routes?,
         loop: EventLoop) throws {
        self.routes = routes
        self.recorder = recorder
        self.rates = rates
        self.network = network
        self.loop = loop
        guard let http = evhttp_new(loop.base) else { throw APNSSimulatorError("evhttp_new failed") }
        self.http = http
        evhttp_set_allowed_methods(http, UInt16(EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_PUT.rawValue))
        evhttp_set_gencb(http, controlRequest, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Binds the listener, not accepting yet; returns the port bound.
    func bind(host: String, port: Int) throws -> Int {
        let listener = try bindListener(base: loop.base, host: host, port: port, reusePort: false, callback: nil, context: nil)
        guard let bound = evhttp_bind_listener(http, listener) else {
            evconnlistener_free(listener)
            throw APNSSimulatorError("evhttp_bind_listener failed")
        }
        boundSocket = bound
        guard let port = boundPort(of: evhttp_bound_socket_get_fd(bound)) else {
            throw APNSSimulatorError("cannot read the control port bound on \(host)")
        }
        return port
    }

    /// Starts accepting; on the loop's thread.
    func start() {
        if let boundSocket { evconnlistener_enable(evhttp_bound_socket_get_listener(boundSocket)) }
    }

    /// Frees the evhttp with its connections; on the loop's thread, or on the starting
    /// thread for a server that never started.
    func close() {
        evhttp_free(http)
    }

    func handle(_ request: UnsafeMutablePointer<evhttp_request>) {
        let command = evhttp_request_get_command(request)
        let method = command == EVHTTP_REQ_POST ? "POST" : command == EVHTTP_REQ_PUT ? "PUT" : "GET"
        let uri = evhttp_request_get_uri(request).map { String(cString: $0) } ?? "/"
        let status: Int32
        let body: [UInt8]
        let route = ControlRoute(method: method, uri: uri)
        let path = String(uri.prefix { $0 != "?" })
        do {
            if route == .notFound, let added = routes?(method, path, Self.body(of: request)) {
                (status, body) = added
            } else {
                (status, body) = try answer(route, request)
            }
        } catch {
            (status, body) = (500, Array(#"{"error":"the answer could not be encoded"}"#.utf8))
        }
        let headers = evhttp_request_get_output_headers(request)
        evhttp_add_header(headers, "Content-Type", "application/json")
        guard let buffer = evbuffer_new() else {
            evhttp_send_error(request, 500, nil)
            return
        }
        defer { evbuffer_free(buffer) }
        evbuffer_add(buffer, body, body.count)
        evhttp_send_reply(request, status, nil, buffer)
    }
}

extension ControlServer {
    /// The route's status and JSON body; throws only when the answer cannot be encoded.
    private func answer(_ route: ControlRoute, _ request: UnsafeMutablePointer<evhttp_request>) throws -> (Int32, [UInt8]) {
        switch route {
        case .stats:
            return (200, try Self.encoded(recorder.stats))
        case .deliveries(let token):
            return (200, recorder.deliveriesJSON(token: token))
        case .reset:
            recorder.reset()
            return (200, Array(#"{"reset":true}"#.utf8))
        case .rates:
            return (200, try rates.current.json)
        case .setRates:
            let new: FailureRates
            do {
                new = try FailureRates(json: Self.body(of: request))
            } catch {
                return (400, try Self.refusal(error))
            }
            rates.set(new)
            return (200, try new.json)
        case .network:
            return (200, try network.current.json)
        case .setNetwork:
            let new: NetworkShape
            do {
                new = try NetworkShape(json: Self.body(of: request))
            } catch {
                return (400, try Self.refusal(error))
            }
            network.set(new)
            return (200, try new.json)
        case .methodNotAllowed:
            return (405, Array(#"{"error":"method not allowed"}"#.utf8))
        case .notFound:
            return (404, Array(#"{"error":"not found"}"#.utf8))
        }
    }

    /// `{"error":…}` for a body that was refused.
    static func refusal(_ error: any Error) throws -> [UInt8] {
        try encoded(["error": (error as? APNSSimulatorError)?.description ?? "\(error)"])
    }

    /// A control answer as compact JSON with sorted keys.
    static func encoded(_ answer: some Encodable) throws -> [UInt8] {
        try JSONAnswer.bytes(answer)
    }

    static func body(of request: UnsafeMutablePointer<evhttp_request>) -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(request) else { return [] }
        let length = evbuffer_get_length(input)
        return [UInt8](unsafeUninitializedCapacity: length) { storage, count in
            count = length == 0 ? 0 : max(0, evbuffer_copyout(input, storage.baseAddress, length))
        }
    }
}

private func controlRequest(_ request: UnsafeMutablePointer<evhttp_request>?, _ context: UnsafeMutableRawPointer?) {
    guard let request else { return }
    Unmanaged<ControlServer>.fromOpaque(context!).takeUnretainedValue().handle(request)
}
