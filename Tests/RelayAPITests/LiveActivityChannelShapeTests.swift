import Testing
@testable import RelayAPI
import RelayCore

/// The channel routes' pure parts: the create body, the channel id in a path, the storage time.
@Suite struct LiveActivityChannelShapeTests {
    @Test func aCreateBodyNamesAPolicyAndMaybeAnEnvironment() throws {
        #expect(try ChannelCreation.parse(Array(#"{"message_storage_policy":0}"#.utf8))
            == ChannelCreation(storagePolicy: .noMessageStored, environment: .production))
        #expect(try ChannelCreation.parse(Array(#"{"message_storage_policy":1,"environment":"sandbox"}"#.utf8))
            == ChannelCreation(storagePolicy: .mostRecentMessageStored, environment: .sandbox))
        for (body, code) in [("{}", 1002), (#"{"message_storage_policy":2}"#, 1003), (#"{"message_storage_policy":-1}"#, 1003),
                             (#"{"message_storage_policy":0.5}"#, 1003), (#"{"message_storage_policy":0,"environment":"dev"}"#, 1003),
                             (#"{"message_storage_policy":0,"x":1}"#, 1009), ("[]", 1003)] {
            #expect(throws: JPushError.self, "\(body)") { try ChannelCreation.parse(Array(body.utf8)) }
            do { _ = try ChannelCreation.parse(Array(body.utf8)) } catch { #expect(error.code == code, "\(body): \(error.message)") }
        }
    }

    @Test func aPathSegmentTakesBase64OrBase64URL() throws {
        #expect(try ChannelPathID.channelID("dHN0LXNyY2gtY2hubA==") == "dHN0LXNyY2gtY2hubA==")
        #expect(try ChannelPathID.channelID("dHN0LXNyY2gtY2hubA") == "dHN0LXNyY2gtY2hubA==", "padding optional")
        #expect(try ChannelPathID.channelID("ab-_cd") == "ab+/cd==")
        for bad in ["", "not!base64", "a b", "é"] {
            #expect(throws: JPushError.self, "\(bad)") { try ChannelPathID.channelID(bad) }
        }
    }

    @Test func onlyAStoringChannelKeepsABroadcastAndForEightHoursAtMost() {
        #expect(ChannelBroadcastTiming.expiration(storagePolicy: 0, timeToLive: 86400, now: 1000) == nil)
        #expect(ChannelBroadcastTiming.expiration(storagePolicy: 1, timeToLive: 0, now: 1000) == nil)
        #expect(ChannelBroadcastTiming.expiration(storagePolicy: 1, timeToLive: 60, now: 1000) == 1060)
        #expect(ChannelBroadcastTiming.expiration(storagePolicy: 1, timeToLive: 86400, now: 1000) == 1000 + 8 * 3600)
    }
}
