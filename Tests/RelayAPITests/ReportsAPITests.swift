import Foundation
import Testing
@testable import RelayAPI

/// The report calls over HTTP against rows written straight into the pipeline's tables.
@Suite struct ReportsAPITests {
    @Test func receivedReadsTheCountersInJPushShape() async throws {
        try await RelayHarness.with { relay in
            let app = try await ReportApp.make(relay, name: "reports")
            // Counters, not rows: no delivery row exists, yet 7 were sent.
            try await app.message(9_000_000_000_000_001, target: 10, sent: 7, failed: 1)
            try await app.message(42, state: "resolving")

            let list = try await app.list("/v3/received?msg_ids=42,%209000000000000001,42,")
            #expect(list.map { $0["msg_id"] as? String } == ["42", "9000000000000001"], "request order, each once, ids as strings")
            let first = try #require(list.last)
            #expect(first["ios_apns_sent"] as? Int == 7)
            for key in ["ios_msg_received", "wp_mpns_sent"] {
                #expect(first[key] is NSNull, "\(key)")
            }
            #expect(first["ios_apns_received"] as? Int == 0 && first["android_received"] as? Int == 0, "counted from receipts: none yet")
            #expect(list.first?["ios_apns_sent"] as? Int == 0)

            let detail = try await app.list("/v3/received/detail?msg_ids=9000000000000001")
            let entry = try #require(detail.first)
            #expect(entry["msg_id"] as? String == "9000000000000001" && entry["ios_apns_sent"] as? Int == 7)
            #expect(entry["android_pns_sent"] as? Int == 0, "no Android device sent to")
            #expect(entry["ios_apns_received"] as? Int == 0 && entry["android_pns_received"] as? Int == 0)
            for key in ["jpush_received", "ios_msg_received",
                        "live_acivity_sent", "live_acivity_received", "quickapp_jpush_received", "quickapp_pns_sent",
                        "hmos_hmpns_sent", "hmos_hmpns_received", "hmos_msg_received"] {
                #expect(entry[key] is NSNull, "\(key)")
            }

            // Unknown msg_ids are left out.
            #expect(try await app.list("/v3/received?msg_ids=77").isEmpty)
        }
    }

    @Test func messagesDetailHasJPushDetailsAndTheExtensionFigures() async throws {
        try await RelayHarness.with { relay in
            let app = try await ReportApp.make(relay, name: "reports")
            let sending = try await app.message(100, target: 20, sent: 10, failed: 3, invalidated: 2, expired: 1, retries: 4, sentWindow: true)
            try await app.failure(sending, reason: "BadDeviceToken", count: 2)
            try await app.failure(sending, reason: "Unregistered", count: 2)
            try await app.failure(sending, reason: "Expired", count: 1)
            let done = try await app.message(101, state: "done", target: 8, sent: 8, sentWindow: true, finishedAfter: 4)
            let withdrawn = try await app.message(102, state: "withdrawn", target: 50, sent: 5, finishedAfter: 2)

            let list = try await app.list("/v3/messages/detail?msg_ids=\(sending),\(done),\(withdrawn)")
            #expect(list.count == 3)
            let first = list[0]
            #expect(first["msg_id"] as? String == "100")
            let notification = try #require((first["details"] as? [String: Any])?["notification"] as? [String: Any])
            #expect(notification["target"] as? Int == 20 && notification["sent"] as? Int == 10)
            #expect(notification["received"] as? Int == 0 && notification["display"] is NSNull && notification["click"] as? Int == 0)
            let apns = try #require((notification["sub_ios"] as? [String: Any])?["apns"] as? [String: Any])
            #expect(apns["target"] as? Int == 20 && apns["sent"] as? Int == 10)
            #expect(first["state"] as? String == "sending")
            #expect(first["failed"] as? Int == 3 && first["invalidated_tokens"] as? Int == 2 && first["expired"] as? Int == 1)
            #expect(first["failed_by_reason"] as? [String: Int] == ["BadDeviceToken": 2, "Unregistered": 2, "Expired": 1])
            #expect(first["pending"] as? Int == 4 && first["withdrawn"] as? Int == 0 && first["retries"] as? Int == 4)
            #expect(first["created_at"] as? String == "2026-11-30T09:00:00Z")
            #expect(first["first_sent_at"] as? String == "2026-11-30T09:00:01Z" && first["last_sent_at"] as? String == "2026-11-30T09:00:04Z")
            #expect(first["finished_at"] is NSNull && first["duration_seconds"] is NSNull && first["throughput_per_second"] is NSNull)

            let second = list[1]
            #expect(second["state"] as? String == "done" && second["pending"] as? Int == 0)
            #expect(second["failed_by_reason"] as? [String: Int] == [:])
            #expect(second["finished_at"] as? String == "2026-11-30T09:00:04Z")
            #expect(second["duration_seconds"] as? Double == 4 && second["throughput_per_second"] as? Double == 2)

            let third = list[2]
            #expect(third["pending"] as? Int == 0 && third["withdrawn"] as? Int == 45)
            #expect(third["first_sent_at"] is NSNull)
        }
    }

    @Test func statusCodesForMixedRegistrationIDs() async throws {
        try await RelayHarness.with { relay in
            let app = try await ReportApp.make(relay, name: "A")
            let other = try await ReportApp.make(relay, name: "B")
            let devices = try await app.devices(5)
            let foreign = try await other.devices(1)[0]
            let sending = try await app.message(7_000_000_000_000_000, target: 4, sent: 1, failed: 1, invalidated: 1)
            try await app.delivery(sending, device: devices[0].id, outcome: "sent")
            try await app.delivery(sending, device: devices[1].id, outcome: "failed", reason: "InternalServerError")
            try await app.delivery(sending, device: devices[2].id, outcome: "invalidated", reason: "Unregistered")
            let malformed = "not-a-registration-id"
            let nowhere = String(repeating: "ab", count: 16)
            let rids = devices.map(\.rid) + [foreign.rid, malformed, nowhere]

            // msg_id as a number and as a string answer the same.
            let byNumber = try await app.status(sending, rids)
            let byString = try await app.status(String(sending), rids)
            #expect(byNumber == byString)
            #expect(byNumber == [
                devices[0].rid: 0, devices[1].rid: 1, devices[2].rid: 1,
                devices[3].rid: 1, devices[4].rid: 1,  // no outcome yet while sending
                foreign.rid: 2, malformed: 2, nowhere: 2,
            ])

            let done = try await app.message(7_000_000_000_000_001, state: "done", target: 2, sent: 1, expired: 1)
            try await app.delivery(done, device: devices[0].id, outcome: "sent")
            try await app.delivery(done, device: devices[1].id, outcome: "expired", reason: "Expired")
            #expect(try await app.status(done, [devices[0].rid, devices[1].rid, devices[2].rid, foreign.rid])
                    == [devices[0].rid: 0, devices[1].rid: 1, devices[2].rid: 3, foreign.rid: 2])

            let withdrawn = try await app.message(7_000_000_000_000_002, state: "withdrawn", target: 3, sent: 1)
            try await app.delivery(withdrawn, device: devices[0].id, outcome: "sent")
            try await app.delivery(withdrawn, device: devices[1].id, outcome: "withdrawn")
            #expect(try await app.status(withdrawn, [devices[0].rid, devices[1].rid, devices[2].rid])
                    == [devices[0].rid: 0, devices[1].rid: 1, devices[2].rid: 1])
        }
    }

    @Test func errorsInTheReportFamilysCodes() async throws {
        try await RelayHarness.with { relay in
            let app = try await ReportApp.make(relay, name: "reports")
            try await app.message(5, target: 1)
            let rid = try await app.devices(1)[0].rid

            for (method, path) in [("GET", "/v3/received?msg_ids=5"), ("GET", "/v3/received/detail?msg_ids=5"),
                                   ("GET", "/v3/messages/detail?msg_ids=5"), ("POST", "/v3/status/message")] {
                let none = try await relay.request(method, path, auth: .none)
                let wrong = try await relay.request(method, path, auth: .basic(app.client.key, "wrong-secret"))
                #expect(none.status == 401 && none.errorCode == 3001, "\(path)")
                #expect(wrong.status == 401 && wrong.errorCode == 3001, "\(path)")
            }

            let hundred = (1...100).map(String.init).joined(separator: ",")
            for path in ["/v3/received", "/v3/received/detail", "/v3/messages/detail"] {
                for bad in ["", "?msg_ids=", "?msg_ids=abc", "?msg_ids=5,-1", "?msg_ids=0"] {
                    let reply = try await app.request("GET", path + bad)
                    #expect(reply.status == 400 && reply.errorCode == 3002, "\(path)\(bad)")
                }
                #expect(try await app.request("GET", "\(path)?msg_ids=\(hundred)").status == 200)
                let tooMany = try await app.request("GET", "\(path)?msg_ids=\(hundred),101")
                #expect(tooMany.status == 400 && tooMany.errorCode == 3005, "\(path)")
            }

            let statusErrors: [(Any, Int)] = [
                (["msg_id": "abc", "registration_ids": [rid]], 3002),
                (["msg_id": 5], 3002),
                (["msg_id": 5, "registration_ids": [rid], "date": "yesterday"], 3002),
                (["msg_id": 5, "registration_ids": [rid], "unknown": true], 3002),
                (["msg_id": 6, "registration_ids": [rid]], 3002),  // no such message
                (["msg_id": 5, "registration_ids": (0...1000).map { String(format: "%032x", $0) }], 3005),
            ]
            for (body, code) in statusErrors {
                let reply = try await app.request("POST", "/v3/status/message", json: body)
                #expect(reply.status == 400 && reply.errorCode == code, "\(body)")
            }
            let notJSON = try await relay.request("POST", "/v3/status/message", auth: .basic(app.client.key, app.client.secret),
                                                  body: Data("msg_id=5".utf8))
            #expect(notJSON.status == 400 && notJSON.errorCode == 3002)
            #expect(try await app.status(5, [rid]) == [rid: 1])
        }
    }

    @Test func anotherAppCannotReadReportsOrStatuses() async throws {
        try await RelayHarness.with { relay in
            let a = try await ReportApp.make(relay, name: "A")
            let b = try await ReportApp.make(relay, name: "B")
            let aDevice = try await a.devices(1)[0]
            let aMessage = try await a.message(1_000_001, target: 1, sent: 1)
            try await a.delivery(aMessage, device: aDevice.id, outcome: "sent")
            let bMessage = try await b.message(1_000_002, target: 3, sent: 2)

            for path in ["/v3/received", "/v3/received/detail", "/v3/messages/detail"] {
                #expect(try await b.list("\(path)?msg_ids=\(aMessage)").isEmpty, "\(path)")
                #expect(try await b.list("\(path)?msg_ids=\(aMessage),\(bMessage)").map { $0["msg_id"] as? String } == ["1000002"])
                #expect(try await a.list("\(path)?msg_ids=\(aMessage),\(bMessage)").map { $0["msg_id"] as? String } == ["1000001"])
            }

            // A's message: the answer B gets for a msg_id that exists nowhere.
            let guessed = try await b.request("POST", "/v3/status/message", json: ["msg_id": aMessage, "registration_ids": [aDevice.rid]])
            let nowhere = try await b.request("POST", "/v3/status/message", json: ["msg_id": 999_999, "registration_ids": [aDevice.rid]])
            #expect(guessed.status == 400 && guessed.errorCode == 3002)
            #expect(guessed.errorMessage == nowhere.errorMessage?.replacingOccurrences(of: "999999", with: String(aMessage)))
            // B's own message: A's device is not B's.
            #expect(try await b.status(bMessage, [aDevice.rid]) == [aDevice.rid: 2])
            #expect(try await a.status(aMessage, [aDevice.rid]) == [aDevice.rid: 0])
        }
    }
}
