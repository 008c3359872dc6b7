import Dispatch
import Foundation

/// Dispatch signal sources for some signals: each delivery calls `onSignal` (on a queue of
/// its own) until `cancel()`. The signals' default actions stay off for the rest of the
/// process, so a late one cannot kill it half-way through an exit.
final class SignalWatch: @unchecked Sendable {
    // Set once in init; the sources (not Sendable) are only touched again by cancel().
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], onSignal: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "pushrelay.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // Dispatch merges deliveries that come close together: `data` counts them. The
            // handler holds its source until cancel() takes it away.
            source.setEventHandler {
                for _ in 0..<max(1, Int(source.data)) { onSignal(number) }
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources {
            source.cancel()
            source.setEventHandler(handler: nil)
        }
    }
}
