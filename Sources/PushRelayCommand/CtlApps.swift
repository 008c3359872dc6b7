import Foundation

/// `ctl apps …` and `ctl apns set`.
struct CtlApps {
    let client: CtlClient
    let output: CtlOutput

    func run(_ verb: String, _ arguments: CtlArguments) async throws {
        switch verb {
        case "create":
            let name = try arguments.value("name") ?? arguments.positional(0, "the app's name (--name)")
            let app = try await client.object("POST", "/admin/v1/apps", auth: .admin, json: ["name": name])
            output.show(app) {
                TextTable.pairs([("app_key", app["app_key"]), ("name", app["name"]), ("master_secret", app["master_secret"])])
                    + "The master secret is shown only now: keep it.\n"
            }
        case "list":
            let answer = try await client.object("GET", "/admin/v1/apps", auth: .admin)
            let apps = answer["apps"] as? [[String: Any]] ?? []
            output.show(answer) {
                var table = TextTable(["APP_KEY", "NAME", "CREATED"])
                for app in apps { table.add([app["app_key"], app["name"], app["created_at"]]) }
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
        var body: [String: Any] = ["topic": try arguments.required("topic")]
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
        let credential = try await client.object("PUT", path, auth: .admin, json: body)
        output.show(credential) {
            TextTable.pairs(environment == nil ? Self.credentialPairs(credential) : credential.keys.sorted().map { ($0, credential[$0]) })
        }
    }

    static func read(_ path: String) throws(CtlError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw .failed("cannot read \(path)") }
        return String(decoding: data, as: UTF8.self)
    }

    /// An app as `apps show` prints it: the app, its credential and its devices.
    static func describe(_ app: [String: Any]) -> String {
        var pairs: [(String, Any?)] = [("app_key", app["app_key"]), ("name", app["name"]), ("created_at", app["created_at"]),
                                        ("secret_rotated_at", app["secret_rotated_at"])]
        if let apns = app["apns"] as? [String: Any] {
            pairs += credentialPairs(apns)
        } else {
            pairs.append(("apns", "none"))
        }
        if let devices = app["devices"] as? [String: Any] {
            for environment in ["production", "sandbox"] {
                let states = devices[environment] as? [String: Any] ?? [:]
                pairs.append(("devices.\(environment)", "\(TextTable.cell(states["active"])) active, \(TextTable.cell(states["invalidated"])) invalidated"))
            }
        }
        return TextTable.pairs(pairs)
    }

    /// An app's credentials (`GET /admin/v1/apps/{app_key}/apns`) as lines, each environment's
    /// metadata marked with its name.
    static func credentialPairs(_ apns: [String: Any]) -> [(String, Any?)] {
        ["production", "sandbox"].flatMap { environment -> [(String, Any?)] in
            guard let credential = apns[environment] as? [String: Any] else { return [("apns [\(environment)]", "none")] }
            return ["auth", "topic", "key_id", "team_id", "certificate_expires_at", "updated_at", "broken_at", "broken_reason"]
                .filter { !(credential[$0] is NSNull) && credential[$0] != nil }
                .map { ("apns.\($0) [\(environment)]", credential[$0]) }
        }
    }
}
