/// Why the simulator could not be configured or started.
public struct APNSSimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// Set for `--help`: `message` is the usage text, to print before exiting successfully.
    public var isHelpRequest: Bool

    public init(_ message: String, isHelpRequest: Bool = false) {
        self.message = message
        self.isHelpRequest = isHelpRequest
    }

    public var description: String { message }
}
