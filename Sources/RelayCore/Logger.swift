import Foundation
import Synchronization

/// A structured logger: one JSON object per line on standard error.
///
/// A value type carrying its metadata, so a request's logger is the server's logger plus
/// `request_id`, passed along rather than looked up.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { "\($0)" == name.lowercased() }) else {
                if name.lowercased() == "warn" { self = .warning; return }
                return nil
            }
            self = level
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Where lines go; tests capture them.
    public typealias Sink = @Sendable (String) -> Void

    public let label: String
    public var level: Level
    public var metadata: [String: String]
    private let sink: Sink

    public init(label: String, level: Level = .info, metadata: [String: String] = [:], sink: Sink? = nil) {
        self.label = label
        self.level = level
        self.metadata = metadata
        self.sink = sink ?? Logger.standardError
    }

    /// This logger with more metadata on every line.
    public func with(_ extra: [String: String]) -> Logger {
        var copy = self
        copy.metadata.merge(extra) { _, new in new }
        return copy
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        guard level >= self.level else { return }
        var object: [String: String] = metadata.merging(extra) { _, new in new }
        object["ts"] = Logger.timestamp()
        object["level"] = "\(level)"
        object["logger"] = label
        object["msg"] = message()
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
              let line = String(data: data, encoding: .utf8) else { return }
        sink(line)
    }

    public func trace(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.trace, message(), extra) }
    public func debug(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.debug, message(), extra) }
    public func info(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.info, message(), extra) }
    public func notice(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.notice, message(), extra) }
    public func warning(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.warning, message(), extra) }
    public func error(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.error, message(), extra) }

    private static let writeLock = Mutex(())

    private static let standardError: Sink = { line in
        writeLock.withLock { _ in StandardStream.error.write(line + "\n") }
    }

    private static func timestamp() -> String {
        let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return Date().formatted(formatter)
    }
}
