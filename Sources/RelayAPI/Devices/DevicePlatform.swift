import RelayCore
import RelayStore

/// The `platform` query parameter of the tag and alias calls: JPush platforms separated by
/// commas. This relay only has iOS devices, so the question is whether iOS is included.
enum DevicePlatform {
    static let known: Set<String> = ["android", "ios", "quickapp", "hmos"]

    /// - Returns: whether the call concerns iOS devices (true when `platform` is absent).
    /// - Throws: for a platform JPush does not know.
    static func includesIOS(_ platform: String?) throws(DeviceFieldError) -> Bool {
        guard let platform, !platform.isEmpty else { return true }
        let names = platform.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw DeviceFieldError("platform must be a comma-separated list of android, ios, quickapp, hmos; got \(InputEcho.quoted(unknown))")
        }
        return names.contains("ios")
    }
}
