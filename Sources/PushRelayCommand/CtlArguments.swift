/// A ctl command line: positional words and `--flag value` / `--flag=value` options (a
/// flag may repeat), checked against the flags the command knows.
struct CtlArguments: Sendable, Equatable {
    /// Flags that take a value; every other known flag is a switch.
    static let valued: Set<String> = [
        "url", "admin-token", "app-key", "app-secret", "name", "topic", "p8", "key-id", "team-id", "cert", "key", "p12",
        "password", "environment", "platform", "alias", "tag", "rid", "alert", "title", "badge", "sound", "extra", "format", "batch",
        "since", "until", "bucket", "timeout", "cid", "limit",
    ]
    static let switches: Set<String> = ["json", "all", "no-wait", "help"]

    var positionals: [String] = []
    var options: [String: [String]] = [:]

    init(_ arguments: [String]) throws(CtlError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if Self.switches.contains(name) {
                guard value == nil else { throw .usage("--\(name) takes no value") }
                options[name, default: []].append("true")
            } else if Self.valued.contains(name) {
                if value == nil {
                    guard index < arguments.count else { throw .usage("--\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                options[name, default: []].append(value!)
            } else {
                throw .usage("unknown option --\(name)")
            }
        }
    }

    /// The last value of a flag.
    func value(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeatable flag, commas splitting lists (`--tag a,b --tag c`).
    func list(_ name: String) -> [String] {
        (options[name] ?? []).flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty }
    }

    func flag(_ name: String) -> Bool { options[name] != nil }

    /// A value that must be given.
    func required(_ name: String) throws(CtlError) -> String {
        guard let value = value(name), !value.isEmpty else { throw .usage("--\(name) is required") }
        return value
    }

    /// The positional at `index`, which must be there.
    func positional(_ index: Int, _ what: String) throws(CtlError) -> String {
        guard positionals.indices.contains(index) else { throw .usage("missing \(what)") }
        return positionals[index]
    }
}
