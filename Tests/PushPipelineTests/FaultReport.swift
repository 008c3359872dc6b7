import Foundation

/// The fault suite's sizes and its results: with PUSHRELAY_RELIABILITY_FULL=1 (`make
/// reliability`) the sizes, smaller ones inside `make test`; each scenario appends
/// one JSON line to PUSHRELAY_RELIABILITY_RESULTS when set, which
/// scripts/reliability-table.py renders as the table.
enum FaultReport {
    static let full = ProcessInfo.processInfo.environment["PUSHRELAY_RELIABILITY_FULL"] == "1"

    /// One scenario's figures: notifications owed (devices × messages), devices that got
    /// theirs, extra copies, the extra copies whose device got every copy with one collapse
    /// id (so it showed one notification: `Arrivals.collapsed`), and the owed ones never
    /// delivered (nor counted expired).
    static func record(_ scenario: String, sent: Int, delivered: Int, duplicates: Int, collapsed: Int, expired: Int = 0,
                       elapsed: Duration, notes: String = "") {
        guard let path = ProcessInfo.processInfo.environment["PUSHRELAY_RELIABILITY_RESULTS"], !path.isEmpty else { return }
        let line: [String: Any] = [
            "scenario": scenario, "sent": sent, "delivered": delivered, "duplicates": duplicates, "collapsed": collapsed,
            "expired": expired,
            "lost": sent - delivered - expired, "seconds": Double(elapsed.components.seconds)
                + Double(elapsed.components.attoseconds) / 1e18,
            "notes": notes,
        ]
        guard var data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) else { return }
        data.append(UInt8(ascii: "\n"))
        // O_APPEND: each line lands whole even if two test processes share the file.
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// SplitMix64: the kill moments come from a fixed seed, so a failing run can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
