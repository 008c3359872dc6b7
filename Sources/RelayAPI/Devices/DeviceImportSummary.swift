/// What an import reports: how many lines were accepted and rejected, and why the first
/// rejected lines were.
struct DeviceImportSummary: Sendable, Equatable, Encodable {
    static let rejectionsShown = 20

    struct Rejection: Sendable, Equatable, Encodable {
        var line: Int
        var reason: String
    }

    var accepted = 0
    var rejected = 0
    var firstRejections: [Rejection] = []
    /// Devices the import created, and existing devices it refreshed.
    var created = 0
    var updated = 0

    enum CodingKeys: String, CodingKey {
        case accepted, rejected, created, updated, firstRejections = "rejected_lines"
    }

    mutating func reject(line: Int, reason: String) {
        rejected += 1
        if firstRejections.count < Self.rejectionsShown { firstRejections.append(Rejection(line: line, reason: reason)) }
    }

    /// Adds the summary of the next stretch of the body, whose lines were numbered from 1;
    /// `lineOffset` is the number of lines before it. Rejections stay in file order.
    mutating func append(_ next: DeviceImportSummary, lineOffset: Int) {
        accepted += next.accepted
        rejected += next.rejected
        created += next.created
        updated += next.updated
        for rejection in next.firstRejections.prefix(Self.rejectionsShown - firstRejections.count) {
            firstRejections.append(Rejection(line: rejection.line + lineOffset, reason: rejection.reason))
        }
    }
}
