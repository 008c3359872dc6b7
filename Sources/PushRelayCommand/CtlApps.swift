import Foundation
import RelayCore

/// `ctl apps …` and `ctl apns set`.
struct CtlApps {
    let client: CtlClient
    let output: CtlOutput

    func run(_ verb: String, _ arguments: CtlArguments) async throws {
        switch verb {
        case "create":
            let name = try arguments.value("name") ?? arguments.positional(0, "the app's name (--name)")
            let app = try await client.object("POST", "/admin/v1/apps", auth: .admin, json: .object(["name": .string(name)]))
            output.show(app) {
                TextTable.pairs([("app_key", app["app_key"]), ("name", app["name"]), ("master_secret", app["master_secret"])])
                    + "The master secret is shown only now: keep it.\n"
            }
        case "list":
            let answer = try await client.object("GET", "/admin/v1/apps", auth: .admin)
            output.show(answer) {
                var table = TextTable(["APP_KEY", "NAME", "CREATED"])
                for app in answer["apps"]?.items ?? [] { table.add([app["app_key"], app["name"], app["created_at"]]) }
                return table.rendered
            }
        case "show":
            let key = try arguments.positional(0, "the app key")
            let app = try await client.object("GET", "/admin/v1/apps/\(key.urlComponent)", auth: .admin)
            output.show(app) { Self.describe(app) }
        case "delete":
            let key = try arguments.positional(0, "the app key")
            let answer = try await client.object("DELETE", "/admin/v1/apps/\(key.urlComponent)", auth: .admin)
            output.show(answer) { "deleted app \(key)\n" }
        case "rotate-secret":
            let key = try arguments.positional(0, "the app key")
            let app = try await client.object("POST", "/admin/v1/apps/\(key.urlComponent)/secret", auth: .admin)
            output.show(app) {
                TextTable.pairs([("app_key", app["app_key"]), ("master_secret", app["master_secret"])])
                    + "The old secret no longer works.\n"
            }
        default:
            throw CtlError.usage("apps takes create, list, show, delete or rotate-secret")
        }
    }

    /// `apns set KEY`: a token key (.p8) or a certificate (PEM pair or .p12), read from files,
    /// for both APNs environments or (`--environment`) one.
    func setAPNs(_ arguments: CtlArguments) async throws {
        let key = try arguments.positional(0, "the app key")
        let environment = arguments.value("environment")
        if let environment, !["sandbox", "production"].contains(environment) {
            throw CtlError.usage("--environment is sandbox or production")
        }
        var body: [String: String] = ["topic": try arguments.required("topic")]
        if let p8 = arguments.value("p8") {
            body["auth"] = "token"
            body["private_key"] = try Self.read(p8)
            body["key_id"] = try arguments.required("key-id")
            body["team_id"] = try arguments.required("team-id")
        } else if let p12 = arguments.value("p12") {
            body["auth"] = "certificate"
            guard let data = FileManager.default.contents(atPath: p12) else { throw CtlError.failed("cannot read \(p12)") }
            body["p12"] = data.base64EncodedString()
            if let password = arguments.value("password") { body["password"] = password }
        } else if let certificate = arguments.value("cert") {
            body["auth"] = "certificate"
            body["certificate"] = try Self.read(certificate)
            body["private_key"] = try Self.read(try arguments.required("key"))
        } else {
            throw CtlError.usage("apns set needs --p8 FILE (with --key-id and --team-id), --cert FILE --key FILE, or --p12 FILE")
        }
        let path = "/admin/v1/apps/\(key.urlComponent)/apns" + (environment.map { "/\($0)" } ?? "")
        let credential = try await client.object("PUT", path, auth: .admin, json: .object(body.mapValues(JSONValue.string)))
        output.show(credential) {
            TextTable.pairs(environment == nil ? Self.credentialPairs(credential) : credential.fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
    }

    static func read(_ path: String) throws(CtlError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw .failed("cannot read \(path)") }
        return String(decoding: data, as: UTF8.self)
    }

    /// An app as `apps show` prints it: the app, its credential and its devices.
    static func describe(_ app: JSONValue) -> String {
        var pairs: [(String, JSONValue?)] = [("app_key", app["app_key"]), ("name", app["name"]), ("created_at", app["created_at"]),
                                             ("secret_rotated_at", app["secret_rotated_at"])]
        if let apns = app["apns"], case .object = apns {
            pairs += credentialPairs(apns)
        } else {
            pairs.append(("apns", .string("none")))
        }
        if let devices = app["devices"], case .object = devices {
            for environment in ["production", "sandbox", "android"] {
                let states = devices[environment]
                let counts = "\(TextTable.cell(states?["active"])) active, \(TextTable.cell(states?["invalidated"])) invalidated"
                pairs.append(("devices.\(environment)", .string(counts)))
            }
        }
        return TextTable.pairs(pairs)
    }

    /// An app's credentials (`GET /admin/v1/apps/{app_key}/apns`) as lines, each environment's
    /// metadata marked with its name.
    static func credentialPairs(_ apns: JSONValue) -> [(String, JSONValue?)] {
        ["production", "sandbox"].flatMap { environment -> [(String, JSONValue?)] in
            guard let credential = apns[environment], case .object(let fields) = credential else {
                return [("apns [\(environment)]", .string("none"))]
            }
            return ["auth", "topic", "key_id", "team_id", "certificate_expires_at", "updated_at", "broken_at", "broken_reason"]
                .filter { fields[$0] != nil && fields[$0] != .null }
                .map { ("apns.\($0) [\(environment)]", fields[$0]) }
        }
    }
}
