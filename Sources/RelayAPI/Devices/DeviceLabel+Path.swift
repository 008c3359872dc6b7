import HTTPServer
import RelayStore

extension DeviceLabel {
    /// The `{tag}` or `{alias}` segment of a route's path, validated.
    static func pathParameter(_ parameters: RouteParameters, kind: String) throws(DeviceFieldError) -> String {
        let value = parameters[kind] ?? ""
        try validate(value, kind: kind)
        return value
    }
}
