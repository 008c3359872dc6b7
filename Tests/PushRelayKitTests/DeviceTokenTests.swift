import Foundation
import PushRelayKit
import Testing

@Suite struct DeviceTokenTests {
    @Test func tokenBytesBecomeLowercaseHexTwoDigitsAByte() {
        let bytes = Data([0x00, 0x0F, 0xA0, 0xFF, 0x12, 0xab])
        #expect(DeviceToken(bytes).hex == "000fa0ff12ab")
        let full = Data((0..<32).map { UInt8($0 * 8) })
        let hex = DeviceToken(full).hex
        #expect(hex.count == 64)
        #expect(hex == full.map { String(format: "%02x", $0) }.joined())
        // Not the description, whatever it prints on this platform.
        #expect(hex != full.description)
        #expect(!hex.contains(" ") && !hex.contains("<") && hex == hex.lowercased())
    }

    @Test func debugBuildsAreSandboxReleaseBuildsProduction() {
        #expect(APNsEnvironment.choose(provisioningProfile: nil, debugBuild: true) == .sandbox)
        #expect(APNsEnvironment.choose(provisioningProfile: nil, debugBuild: false) == .production)
    }

    @Test func theProvisioningProfilesEntitlementWinsOverTheBuild() {
        func profile(_ value: String) -> Data {
            // A CMS envelope around the plist: binary noise on both sides of the XML.
            Data([0x30, 0x82, 0x00, 0xFF]) + Data("""
                <?xml version="1.0"?><plist><dict><key>Entitlements</key><dict>
                <key>aps-environment</key>
                    <string>\(value)</string>
                <key>get-task-allow</key><true/></dict></dict></plist>
                """.utf8) + Data([0x00, 0xA0])
        }
        #expect(APNsEnvironment.choose(provisioningProfile: profile("development"), debugBuild: false) == .sandbox)
        #expect(APNsEnvironment.choose(provisioningProfile: profile("production"), debugBuild: true) == .production)
        // No push entitlement in the profile: the build decides.
        let noPush = Data("<plist><dict><key>get-task-allow</key><true/></dict></plist>".utf8)
        #expect(APNsEnvironment.choose(provisioningProfile: noPush, debugBuild: true) == .sandbox)
        #expect(APNsEnvironment.entitlement(inProfile: profile("bogus")) == nil)
    }

    @Test func aNewTokenOrEnvironmentNeedsRegistrationTheSameDoesNot() {
        let record = RegistrationRecord(token: "aa", environment: .sandbox, registrationID: "r")
        #expect(RegistrationRecord.needsRegistration(nil, token: "aa", environment: .sandbox))
        #expect(!RegistrationRecord.needsRegistration(record, token: "aa", environment: .sandbox))
        #expect(RegistrationRecord.needsRegistration(record, token: "bb", environment: .sandbox))
        #expect(RegistrationRecord.needsRegistration(record, token: "aa", environment: .production))
    }

    @Test func backoffDoublesUpToTheCapWithJitterBelowTheBase() {
        let backoff = Backoff(initial: .seconds(2), multiplier: 2, maximum: .seconds(10), jitter: 0.5)
        #expect(backoff.delay(attempt: 1, random: 0) == .seconds(2))
        #expect(backoff.delay(attempt: 2, random: 0) == .seconds(4))
        #expect(backoff.delay(attempt: 3, random: 0) == .seconds(8))
        #expect(backoff.delay(attempt: 4, random: 0) == .seconds(10))
        #expect(backoff.delay(attempt: 40, random: 0) == .seconds(10))
        #expect(backoff.delay(attempt: 2, random: 0.5) == .seconds(3))
    }
}
