import APNSClient
import APNSSimulator
import Foundation
import Testing

/// Our client's channel requests and broadcasts against the simulator, over TLS: the
/// lifecycle of a channel and the answers Apple documents for what is wrong.
@Suite(.timeLimit(.minutes(1)))
struct ChannelInteropTests {
    typealias Interop = ClientInteropTests
    static let update = Array(#"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"1-0"}}}"#.utf8)

    static func request(_ operation: APNSChannelRequest.Operation, bundleID: String = Interop.topic) -> APNSChannelRequest {
        APNSChannelRequest(bundleID: bundleID, operation: operation)
    }

    @Test func aChannelIsCreatedListedReadReceivesABroadcastAndIsDeleted() async throws {
        let fixture = try Interop.Fixture()
        let server = try fixture.simulator()
        let client = try fixture.client(server)
        guard case let .created(channelID) = await client.perform(Self.request(.create(.noMessageStored))) else {
            Issue.record("no channel created")
            return
        }
        #expect(await client.perform(Self.request(.list)) == .channels([channelID]))
        #expect(await client.perform(Self.request(.list, bundleID: "com.example.other")) == .channels([]), "per bundle id")
        #expect(await client.perform(Self.request(.read(channelID: channelID)))
            == .channel(APNSChannelConfiguration(storagePolicy: .noMessageStored)))

        let sent = await client.send(APNSBroadcast(bundleID: Interop.topic, channelID: channelID, payload: Self.update))
        guard case .accepted = sent else {
            Issue.record("broadcast: \(sent)")
            return
        }
        let delivery = try #require(server.simulator.deliveries(token: channelID).first)
        #expect(delivery.pushType == "liveactivity")
        #expect(delivery.priority == "5")
        #expect(delivery.payload == Self.update)

        #expect(await client.perform(Self.request(.delete(channelID: channelID))) == .deleted)
        #expect(await client.perform(Self.request(.list)) == .channels([]))
        #expect(await client.perform(Self.request(.read(channelID: channelID))) == .rejected(status: 400, reason: .channelNotRegistered))
        #expect(await client.send(APNSBroadcast(bundleID: Interop.topic, channelID: channelID, payload: Self.update))
            == .rejected(status: 400, reason: .channelNotRegistered, timestamp: nil))
        await client.shutdown()
        await server.simulator.shutdown()
    }

    @Test func broadcastsBreakingApplesRulesAreRefused() async throws {
        let fixture = try Interop.Fixture()
        let server = try fixture.simulator()
        let client = try fixture.client(server)
        guard case let .created(none) = await client.perform(Self.request(.create(.noMessageStored))),
              case let .created(stored) = await client.perform(Self.request(.create(.mostRecentMessageStored))) else {
            Issue.record("no channels created")
            return
        }
        let later = Int(Date().timeIntervalSince1970) + 3600
        func send(_ channelID: String, expiration: Int? = nil, payload: [UInt8] = Self.update, bundleID: String = Interop.topic) async -> APNSResult {
            await client.send(APNSBroadcast(bundleID: bundleID, channelID: channelID, expiration: expiration, payload: payload))
        }
        #expect(await send(none, expiration: later) == .rejected(status: 400, reason: .badExpirationDate, timestamp: nil),
                "a channel that stores nothing takes expiration 0 only")
        guard case .accepted = await send(stored, expiration: later) else {
            Issue.record("a storing channel takes an expiration")
            return
        }
        #expect(await send(none, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)) == .rejected(status: 400, reason: LiveActivityPayloadCheck.invalid, timestamp: nil),
                "not a Live Activity update")
        #expect(await send(none, bundleID: Interop.topic + ".push-type.liveactivity")
            == .rejected(status: 400, reason: .topicDisallowed, timestamp: nil))
        #expect(await client.perform(Self.request(.read(channelID: "AAAA"))) == .rejected(status: 400, reason: .channelNotRegistered))
        await client.shutdown()
        await server.simulator.shutdown()
    }
}
