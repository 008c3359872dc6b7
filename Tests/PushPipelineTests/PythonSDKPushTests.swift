import Foundation
import Testing

/// The official Python SDK (`jpush`) sends pushes through PushRelay, and they reach the
/// APNs simulator. Without python3 or the package the test fails: `make deps` installs them.
@Suite struct PythonSDKPushTests {
    static let script = #"""
import json, sys
import jpush
from jpush import common

port, key, secret, rid = sys.argv[1:5]
base = "http://127.0.0.1:%s/v3/" % port
common.ZONES["PUSHRELAY"] = {
    "PUSH": base, "REPORT": base, "DEVICE": base + "devices/", "ALIAS": base + "aliases/",
    "TAG": base + "tags/", "SCHEDULE": base + "schedules/", "ADMIN": base,
}
client = jpush.JPush(key, secret, zone="PUSHRELAY")

def check(condition, what):
    if not condition:
        raise SystemExit("FAILED: " + what)

push = client.create_push()
push.platform = jpush.all_
push.audience = jpush.audience(jpush.registration_id(rid))
push.notification = jpush.notification(alert="from python", ios=jpush.ios(alert="from python", badge="+1", sound="default", extras={"order": 7}))
push.options = {"apns_production": True, "time_to_live": 600}
r = push.send_validate()
check(r.status_code == 200 and "msg_id" in r.payload, "send_validate: %s" % r.payload)
r = push.send()
check(r.status_code == 200 and r.payload["sendno"] == "0", "send: %s" % r.payload)
print("MSGID=" + r.payload["msg_id"])

nobody = client.create_push()
nobody.platform = jpush.all_
nobody.audience = jpush.audience(jpush.tag("nobody"))
nobody.notification = jpush.notification(alert="x")
try:
    nobody.send()
    raise SystemExit("FAILED: a push to nobody was accepted")
except common.JPushFailure as failure:
    check(failure.error_code == 1011 and failure.response.status_code == 400, "1011: %s" % failure.error_code)
print("jpush push ok")
"""#

    @Test func officialPythonSDKSendsAPushThatReachesTheSimulator() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "f9", badge: 2)[0]
            let rid = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE token = $1",
                                                 [token]).first!.string("rid")
            let scriptURL = relay.directory.appendingPathComponent("sdk_push.py")
            try Self.script.write(to: scriptURL, atomically: true, encoding: .utf8)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", scriptURL.path, String(relay.port), app.key, app.secret, rid]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            // Read on a thread of its own: the pipe must drain while the script runs.
            let data = await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile()) }.start()
            }
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            #expect(process.terminationStatus == 0, "python3 with the jpush package (make deps installs it):\n\(text)")
            #expect(text.contains("jpush push ok"), "\(text)")
            let msgID = try #require(text.split(separator: "\n").first { $0.hasPrefix("MSGID=") }.flatMap { Int64($0.dropFirst(6)) })
            try await relay.waitUntilFinished(msgID)
            let delivery = try #require(relay.simulator.deliveries(token: token).first)
            #expect(delivery.alert == "from python")
            #expect(delivery.badge == 3)
            #expect(delivery.json["order"] as? Int == 7)
            #expect(delivery.msgID == msgID)
        }
    }
}
