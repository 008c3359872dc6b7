/// What registering a token with a client key takes, given the credentials the phone holds.
///
/// Pure: `ClientKeyRegistration` does what it says.
enum ClientRegistrationStep: Equatable {
    /// The credentials are for this token and environment already.
    case upToDate(DeviceCredentials)
    /// Nothing usable held: register with the client key.
    case register
    /// Move the registration held to the new token or environment (nil: unchanged), with its
    /// secret: the registration id, and what the app's backend attached to it, stay.
    case update(DeviceCredentials, token: String?, environment: APNsEnvironment?)

    static func plan(held: DeviceCredentials?, token: String, environment: APNsEnvironment) -> ClientRegistrationStep {
        guard let held else { return .register }
        if held.token == token && held.environment == environment { return .upToDate(held) }
        return .update(held, token: held.token == token ? nil : token, environment: held.environment == environment ? nil : environment)
    }

    /// Whether a refused update is answered by registering anew: yes for every refusal (401/403:
    /// the secret was renewed elsewhere or lost; 400: the token is another device's, which a
    /// registration takes over). Failures that may pass are retried as they are.
    static func registersAfterFailedUpdate(_ error: PushRelayError) -> Bool {
        !error.isTransient
    }
}
