import Foundation
import Testing
import TestSupport

/// The official Python SDK's report calls (`jpush.JPush(…).create_report()`) read a message's
/// counts and device statuses from a relay started here, through a zone pointing at it.
/// Without python3 or the package the test fails: `make deps` installs them.
@Suite struct ReportsPythonSDKTests {
    static let script = #"""

port, key, secret, msg_id, delivered, failed, foreign = sys.argv[1:8]
relay_zone(port)
report = jpush.JPush(key, secret, zone="PUSHRELAY").create_report()

r = report.get_received(msg_id)
check(r.status_code == 200 and r.payload == [{"msg_id": msg_id, "android_received": 0, "ios_apns_sent": 2,
      "ios_apns_received": 0, "ios_msg_received": None, "wp_mpns_sent": None}], "get_received: %s" % r.payload)
r = report.get_received_detail(msg_id + ",12345")
check(len(r.payload) == 1 and r.payload[0]["ios_apns_sent"] == 2 and r.payload[0]["jpush_received"] is None,
      "get_received_detail: %s" % r.payload)
r = report.get_messages_detail(msg_id)
apns = r.payload[0]["details"]["notification"]["sub_ios"]["apns"]
check(apns["target"] == 4 and apns["sent"] == 2 and r.payload[0]["pending"] == 1, "get_messages_detail: %s" % r.payload)

for given in (msg_id, int(msg_id)):
    r = report.get_status_message(given, [delivered, failed, foreign])
    check(r.payload == {delivered: {"status": 0}, failed: {"status": 1}, foreign: {"status": 2}},
          "get_status_message(%r): %s" % (given, r.payload))

try:
    report.get_received("abc")
    raise SystemExit("FAILED: a malformed msg_id accepted")
except common.JPushFailure as failure:
    check(failure.error_code == 3002 and failure.response.status_code == 400, "malformed msg_id: %s" % failure.error_code)

try:
    jpush.JPush(key, "wrong", zone="PUSHRELAY").create_report().get_received(msg_id)
    raise SystemExit("FAILED: wrong secret accepted")
except common.Unauthorized:
    pass

print("jpush report sdk ok")
"""#

    @Test func officialPythonSDKReadsReports() async throws {
        try await RelayHarness.with { relay in
            let app = try await ReportApp.make(relay, name: "sdk")
            let other = try await ReportApp.make(relay, name: "other")
            let devices = try await app.devices(2)
            let foreign = try await other.devices(1)[0]
            let message = try await app.message(8_123_456_789_012, target: 4, sent: 2, failed: 1)
            try await app.delivery(message, device: devices[0].id, outcome: "sent")
            try await app.delivery(message, device: devices[1].id, outcome: "failed", reason: "InternalServerError")

            let (status, text) = try await JPushPythonSDK.run(Self.script, [String(relay.port), app.client.key, app.client.secret,
                                                                            String(message), devices[0].rid, devices[1].rid, foreign.rid])
            #expect(status == 0, "python3 with the jpush package (make deps installs it):\n\(text)")
            #expect(text.contains("jpush report sdk ok"), "\(text)")
        }
    }
}
