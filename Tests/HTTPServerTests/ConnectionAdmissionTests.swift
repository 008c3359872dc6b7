import Testing
@testable import HTTPServer

/// Which connections are admitted by source address, without sockets.
@Suite struct ConnectionAdmissionTests {
    @Test func anAddressIsRefusedPastItsCapWhileOthersAreAdmitted() {
        var admission = ConnectionAdmission(maxConnections: 100, maxPerAddress: 3)
        for _ in 0..<3 { #expect(admission.opened(from: "10.0.0.1") == .admit) }
        #expect(admission.opened(from: "10.0.0.1") == .refuse(.addressCap))
        #expect(admission.opened(from: "10.0.0.2") == .admit)
        admission.closed(from: "10.0.0.1")
        #expect(admission.opened(from: "10.0.0.1") == .admit, "room again once one closed")
        #expect(admission.total == 4)
    }

    @Test func nearTheCapAnAddressHoldingItsFairShareGetsNoMore() {
        var admission = ConnectionAdmission(maxConnections: 20, maxPerAddress: 20)
        #expect(admission.nearFull == 18)
        for _ in 0..<15 { #expect(admission.opened(from: "a") == .admit) }
        for _ in 0..<3 { #expect(admission.opened(from: "b") == .admit) }
        // 18 open: the fair share of two addresses is 10; "a" holds 15.
        #expect(admission.opened(from: "a") == .refuse(.fairShare))
        #expect(admission.opened(from: "b") == .admit)
        #expect(admission.opened(from: "c") == .admit, "a new address is under its share")
        #expect(admission.total == 20)
    }

    @Test func atTheCapANewcomerUnderItsShareDisplacesTheHeaviestAddress() {
        var admission = ConnectionAdmission(maxConnections: 10, maxPerAddress: 10)
        for _ in 0..<10 { _ = admission.opened(from: "hog") }
        #expect(admission.connections(from: "hog") == 10)
        #expect(admission.opened(from: "other") == .admitEvicting(address: "hog"))
        #expect(admission.total == 11, "the newcomer counts until the evicted one has closed")
        admission.closed(from: "hog")
        #expect(admission.total == 10)
        // When the loop finds no idle connection to close, the newcomer is refused after all.
        #expect(admission.opened(from: "third") == .admitEvicting(address: "hog"))
        admission.evictionFailed(newcomer: "third")
        #expect(admission.connections(from: "third") == 0 && admission.total == 10)
    }

    @Test func atTheCapWithEveryAddressWithinItsShareTheNewcomerIsRefused() {
        var even = ConnectionAdmission(maxConnections: 2, maxPerAddress: 2)
        _ = even.opened(from: "a")
        _ = even.opened(from: "b")
        #expect(even.opened(from: "c") == .refuse(.serverFull), "a and b hold one each: nobody to displace")
    }

    @Test func closingAnUnknownAddressChangesNothing() {
        var admission = ConnectionAdmission(maxConnections: 4, maxPerAddress: 4)
        admission.closed(from: "never")
        #expect(admission.total == 0)
    }

    @Test func ipv6AddressesCountByTheirSlash64() {
        #expect(ConnectionAdmission.key(forPeer: "2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(ConnectionAdmission.key(forPeer: "2001:db8:1:2:bbbb:cccc:dddd:eeee") == "2001:db8:1:2::/64")
        #expect(ConnectionAdmission.key(forPeer: "2001:db8::1") == "2001:db8:0:0::/64")
        #expect(ConnectionAdmission.key(forPeer: "::1") == "0:0:0:0::/64")
        #expect(ConnectionAdmission.key(forPeer: "127.0.0.1") == "127.0.0.1")
        #expect(ConnectionAdmission.key(forPeer: "::ffff:10.1.2.3") == "::ffff:10.1.2.3", "IPv4-mapped stays whole")
    }
}
