import Foundation
import Testing
import TestSupport

/// The official Python SDK's schedule calls (`jpush.JPush(...).create_schedule()`) against a
/// relay started here: create, list, get, update, msg_ids, delete, and its 8104.
@Suite struct JPushPythonSDKScheduleTests {
    static let script = #"""
import datetime

port, key, secret = sys.argv[1:4]
base = relay_zone(port)
# get_msg_ids builds its URL from this name, which the package no longer defines.
common.BASE_SCHEDULEURL = base + "schedules/"
client = jpush.JPush(key, secret, zone="PUSHRELAY")
schedule = client.create_schedule()

push = {"platform": "all", "audience": "all", "notification": {"alert": "from the sdk"}}
tomorrow = datetime.datetime.utcnow() + datetime.timedelta(days=1)
when = tomorrow.strftime("%Y-%m-%d %H:%M:%S")
until = (tomorrow + datetime.timedelta(days=60)).strftime("%Y-%m-%d %H:%M:%S")
payload = jpush.schedulepayload.schedulepayload("sdk reminder", True, jpush.schedulepayload.trigger(when), push)
r = schedule.post_schedule(payload)
check(r.status_code == 200 and r.payload["name"] == "sdk reminder", "post_schedule: %s" % r.payload)
sid = r.payload["schedule_id"]

listed = schedule.get_schedule_list(1).payload
check(listed["total_count"] == 1 and listed["page"] == 1 and listed["schedules"][0]["schedule_id"] == sid, "get_schedule_list: %s" % listed)

got = schedule.get_schedule_by_id(sid).payload
check(got["trigger"]["single"]["time"] == when and got["push"] == push and len(got["next_fire_times"]) == 1, "get_schedule_by_id: %s" % got)

weekly = jpush.schedulepayload.trigger("09:30:00", start=when, end=until, time_unit="WEEK", frequency=1, point=["MON", "FRI"])
r = schedule.put_schedule(jpush.schedulepayload.schedulepayload(name="sdk weekly", trigger=weekly), sid)
check(r.status_code == 200 and r.payload["name"] == "sdk weekly" and r.payload["push"] == push, "put_schedule: %s" % r.payload)
got = schedule.get_schedule_by_id(sid).payload
check(got["trigger"]["periodical"]["point"] == ["MON", "FRI"] and len(got["next_fire_times"]) == 5, "after put: %s" % got)

ids = schedule.get_msg_ids(sid).payload
check(ids == {"count": 0, "msgids": []}, "get_msg_ids: %s" % ids)

r = schedule.delete_schedule(sid)
check(r.status_code == 200 and r.payload == "success", "delete_schedule: %s" % r.payload)
try:
    schedule.get_schedule_by_id(sid)
    raise SystemExit("FAILED: deleted schedule still found")
except common.JPushFailure as failure:
    check(failure.error_code == 8104 and failure.response.status_code == 404, "deleted: %s" % failure.error_code)

try:
    schedule.post_schedule(jpush.schedulepayload.schedulepayload("bad", True, jpush.schedulepayload.trigger("not a time"), push))
    raise SystemExit("FAILED: bad trigger accepted")
except common.JPushFailure as failure:
    check(failure.error_code == 8100 and "trigger.single.time" in str(failure.error), "bad trigger: %s" % failure.error)

print("jpush sdk schedules ok")
"""#

    @Test func officialPythonSDKDrivesScheduleCalls() async throws {
        try await RelayHarness.with { relay in
            let app = try await DeviceClient.make(relay)
            let (status, text) = try await JPushPythonSDK.run(Self.script, [String(relay.port), app.key, app.secret])
            #expect(status == 0, "python3 with the jpush package (make deps installs it):\n\(text)")
            #expect(text.contains("jpush sdk schedules ok"), "\(text)")
        }
    }
}
