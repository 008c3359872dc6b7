import RelayCore
import RelayStore

/// The `platform` query parameter of the tag and alias calls: JPush platforms separated by
/// commas. This relay has iOS and Android devices; the other platforms JPush knows have none
/// here.
enum PlatformParameter {
    static let known: Set<String> = ["android", "ios", "quickapp", "hmos"]

    /// - Returns: the platforms of this relay's devices the call concerns (all when
    ///   `platform` is absent).
    /// - Throws: for a platform JPush does not know.
    static func platforms(_ platform: String?) throws(DeviceFieldError) -> [DevicePlatform] {
        guard let platform, !platform.isEmpty else { return DevicePlatform.allCases }
        let names = platform.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw DeviceFieldError("platform must be a comma-separated list of android, ios, quickapp, hmos; got \(InputEcho.quoted(unknown))")
        }
        return DevicePlatform.allCases.filter { names.contains($0.rawValue) }
    }
}
