import Foundation
import PostgresStore
@testable import RelayStore
import Testing
import RelayCore
@testable import RelayAPI

/// Validation of device-registry input, without a database.
@Suite struct DeviceInputTests {
    static let hex64 = String(repeating: "0123456789abcdef", count: 4)

    @Test func tokensAreNormalisedToLowercaseHex() throws {
        let upper = Self.hex64.uppercased()
        #expect(try DeviceToken(parsing: upper).text == Self.hex64)
        let grouped = "<" + stride(from: 0, to: 64, by: 8).map { i in
            String(upper.dropFirst(i).prefix(8))
        }.joined(separator: " ") + ">"
        #expect(grouped.hasPrefix("<01234567 89ABCDEF "))
        #expect(try DeviceToken(parsing: grouped).text == Self.hex64)
        #expect(try DeviceToken(parsing: "  \(Self.hex64)  ").text == Self.hex64)
        let long = String(repeating: "ab", count: 100)
        #expect(try DeviceToken(parsing: long).text == long)
    }

    @Test func badTokensSayWhy() {
        func reason(_ raw: String) -> String? {
            do { _ = try DeviceToken(parsing: raw); return nil } catch { return error.message }
        }
        #expect(reason(String(Self.hex64.dropLast(2)))?.contains("64 to 200 hex digits, got 62") == true)
        #expect(reason(Self.hex64 + "a")?.contains("even number") == true)
        #expect(reason(String(repeating: "ab", count: 101))?.contains("got 202") == true)
        #expect(reason(String(Self.hex64.dropLast()) + "g")?.contains("\"g\"") == true)
        #expect(reason("<\(Self.hex64)")?.contains("\"<\"") == true, "an unclosed bracket is not the NSData form")
        #expect(reason("") != nil)
    }

    @Test func fcmTokensAreOpaqueTextUpTo4KB() {
        func reason(_ raw: String) -> String? {
            do { _ = try DeviceToken(parsing: raw, platform: .android); return nil } catch { return error.message }
        }
        let token = "dGVzdA:APA91bH-x_y" + String(repeating: "Az09", count: 30)
        #expect((try? DeviceToken(parsing: " \(token)\t", platform: .android).text) == token, "kept as given, spaces around dropped")
        #expect(reason(String(repeating: "a", count: 4096)) == nil)
        #expect(reason(String(repeating: "a", count: 4097))?.contains("4097 bytes") == true)
        #expect(reason("")?.contains("empty") == true)
        #expect(reason("abc def")?.contains("\" \"") == false && reason("abc def") != nil)
        #expect(reason("abc/def")?.contains("\"/\"") == true)
        #expect(reason("abc+def")?.contains("'-', '_' and ':'") == true)
        #expect(reason("tokén") != nil)
    }

    @Test func tagAndAliasCharactersAndLength() {
        func ok(_ value: String) -> Bool { (try? DeviceLabel.validate(value, kind: "tag")) != nil }
        #expect(ok("vip_2024"))
        #expect(ok("用户组"))
        #expect(ok("a@b!c#d$e&f*g+h=i.j|k￥"))
        #expect(ok(String(repeating: "a", count: 40)))
        #expect(!ok(String(repeating: "a", count: 41)))
        #expect(ok(String(repeating: "用", count: 13)), "39 bytes")
        #expect(!ok(String(repeating: "用", count: 14)), "42 bytes of UTF-8 is over the limit")
        #expect(!ok(""))
        #expect(!ok("has space"))
        #expect(!ok("dash-ed"))
        #expect(!ok("comma,"))
        #expect(!ok("smile😀"))
        #expect(!ok("é"), "only ASCII letters, digits and CJK")
    }

    @Test func registrationBody() throws {
        let body = try JSONObjectReader(Array(#"{"platform":"ios","token":"<\#(Self.hex64.uppercased())>","environment":"sandbox","alias":"u1","tags":["a","b","a"],"badge":3}"#.utf8))
        let registration = try DeviceRegistration(body)
        #expect(registration == DeviceRegistration(token: try DeviceToken(parsing: Self.hex64), environment: .sandbox,
                                                   alias: "u1", tags: ["a", "b"], badge: 3))

        func failure(_ json: String) -> String {
            do {
                _ = try DeviceRegistration(try JSONObjectReader(Array(json.utf8)))
                return "accepted"
            } catch let error as DeviceFieldError {
                return "field: \(error.message)"
            } catch let error as JPushError {
                return "\(error.code): \(error.message)"
            } catch {
                return "\(error)"
            }
        }
        #expect(failure(#"{"platform":"ios","token":"\#(Self.hex64)"}"#).hasPrefix("field: environment is required"))
        #expect(failure(#"{"platform":"ios","token":"\#(Self.hex64)","environment":"dev"}"#).contains("sandbox"))
        #expect(failure(#"{"platform":"winphone","token":"\#(Self.hex64)","environment":"sandbox"}"#).contains("platform"))
        #expect(failure(#"{"platform":"android","token":"a:b/c"}"#).contains("FCM registration token"))
        #expect(failure(#"{"platform":"android","token":"abc","environment":"dev"}"#).contains("sandbox"))
        let android = try DeviceRegistration(try JSONObjectReader(Array(#"{"platform":"android","token":"fcm:tok_en-1","environment":"production","alias":"u1"}"#.utf8)))
        #expect(android == DeviceRegistration(platform: .android, token: try DeviceToken(parsing: "fcm:tok_en-1", platform: .android),
                                              environment: nil, alias: "u1"), "an Android device has no APNs environment")
        #expect(failure(#"{"platform":"ios","token":"\#(Self.hex64)","environment":"sandbox","colour":1}"#).hasPrefix("1009"))
        #expect(failure(#"{"platform":"ios","token":"\#(Self.hex64)","environment":"sandbox","badge":-1}"#).contains("badge"))
        #expect(failure(#"{"platform":"ios","token":"\#(Self.hex64)","environment":"sandbox","tags":"a"}"#).contains("list"))
        #expect(failure(#"{"platform":"ios","token":"\#(Self.hex64)","environment":"sandbox","alias":"a b"}"#).contains("alias"))
        let tooMany = (0...1000).map { "\"t\($0)\"" }.joined(separator: ",")
        #expect(failure(#"{"platform":"ios","token":"\#(Self.hex64)","environment":"sandbox","tags":[\#(tooMany)]}"#).contains("1001 tags"))
    }

    @Test func updateBodyEmptyStringSemanticsAndLimits() throws {
        func update(_ json: String) throws -> DeviceUpdate { try DeviceUpdate(try JSONObjectReader(Array(json.utf8))) }
        #expect(try update(#"{"tags":""}"#).tags == .clear)
        #expect(try update(#"{"tags":{"add":["a"],"remove":["b"]}}"#).tags == .change(add: ["a"], remove: ["b"]))
        #expect(try update(#"{"alias":""}"#).alias == "")
        #expect(try update(#"{"mobile":""}"#).mobile == "")
        #expect(try update(#"{}"#) == DeviceUpdate())
        #expect(try update(#"{"badge":0}"#).badge == 0)
        #expect(throws: DeviceFieldError.self) { try update(#"{"tags":"vip"}"#) }
        #expect(throws: DeviceFieldError.self) { try update(#"{"tags":{"add":["a"],"remove":["a"]}}"#) }
        #expect(throws: DeviceFieldError.self) { try update(#"{"mobile":"12ab"}"#) }
        let hundred = (0..<100).map { "\"t\($0)\"" }.joined(separator: ",")
        #expect(try update(#"{"tags":{"add":[\#(hundred)]}}"#).tags == .change(add: (0..<100).map { "t\($0)" }, remove: []))
        #expect(throws: DeviceFieldError.self) { try update(#"{"tags":{"add":[\#(hundred),"one-more"]}}"#) }
        #expect(throws: DeviceFieldError.self) { try update(#"{"tags":{"remove":[\#(hundred),"x101"]}}"#) }
        #expect(throws: JPushError.self) { try update(#"{"tags":{"add":["a"],"replace":["b"]}}"#) }
    }

    @Test func registrationIDListsAndPlatforms() throws {
        func change(_ json: String, allowAdd: Bool = true) throws -> RegistrationIDChange {
            try RegistrationIDChange(try JSONObjectReader(Array(json.utf8)), allowAdd: allowAdd)
        }
        #expect(try change(#"{"registration_ids":{"add":["a","a"],"remove":["b"]}}"#) == RegistrationIDChange(add: ["a"], remove: ["b"]))
        let thousand = (0..<1000).map { "\"r\($0)\"" }.joined(separator: ",")
        #expect(try change(#"{"registration_ids":{"add":[\#(thousand)]}}"#).add.count == 1000)
        #expect(throws: DeviceFieldError.self) { try change(#"{"registration_ids":{"add":[\#(thousand),"x"]}}"#) }
        #expect(throws: JPushError.self) { try change(#"{"registration_ids":{"add":["a"]}}"#, allowAdd: false) }
        #expect(throws: JPushError.self) { try change(#"{}"#) }

        #expect(try PlatformParameter.platforms(nil) == [.ios, .android])
        #expect(try PlatformParameter.platforms("android,ios") == [.ios, .android])
        #expect(try PlatformParameter.platforms("android") == [.android])
        #expect(try PlatformParameter.platforms("hmos").isEmpty)
        #expect(throws: DeviceFieldError.self) { try PlatformParameter.platforms("winphone") }

        #expect(RegistrationID.uuid(String(repeating: "a", count: 32)) != nil)
        #expect(RegistrationID.uuid(String(repeating: "A", count: 32)) == nil)
        #expect(RegistrationID.uuid("1") == nil)
    }

    @Test func listingQueryIsKeysetWithNumberedFilters() throws {
        let listing = try DeviceListing(query: ["tag": "vip", "environment": "production", "active": "true", "after": "42", "limit": "10"])
        #expect(listing == DeviceListing(tag: "vip", environment: .production, active: true, after: 42, limit: 10))
        let (statement, parameters) = listing.statement(appID: 7)
        let sql = statement.text
        #expect(sql.contains("d.id > $2") && sql.contains("ORDER BY d.id") && !sql.uppercased().contains("OFFSET"))
        #expect(sql.contains("d.environment = $4") && sql.contains("d.active = $5") && sql.contains("t.tag = $6"))
        #expect(parameters.map { $0?.postgresText } == ["7", "42", "11", "production", "true", "vip"])
        #expect(throws: JPushError.self) { try DeviceListing(query: ["limit": "0"]) }
        #expect(throws: JPushError.self) { try DeviceListing(query: ["limit": "1001"]) }
        #expect(throws: JPushError.self) { try DeviceListing(query: ["after": "x"]) }
        #expect(throws: JPushError.self) { try DeviceListing(query: ["active": "yes"]) }
        #expect(throws: JPushError.self) { try DeviceListing(query: ["environment": "dev"]) }
        let android = try DeviceListing(query: ["platform": "android"])
        #expect(android.statement(appID: 7).0.text.contains("d.platform = $4"))
        #expect(throws: JPushError.self) { try DeviceListing(query: ["platform": "winphone"]) }
    }

    @Test func arrayLiteralsEscapeQuotesAndBackslashes() {
        #expect(SQLArray.text([]) == "{}")
        #expect(SQLArray.text(["a", "b c", #"q"x"#, #"b\s"#]) == #"{"a","b c","q\"x","b\\s"}"#)
    }
}
