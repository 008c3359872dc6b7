import Foundation

/// An `application/x-www-form-urlencoded` body, as the dashboard's forms send it.
enum FormBody {
    /// Field values by name (the last wins); `+` is a space, `%XX` decoded.
    static func parse(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
