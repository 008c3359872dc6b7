/// Building the dashboard's HTML: escaping and the page frame (inline CSS, no outside
/// resources; scripts only with the response's CSP nonce).
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A whole page. `csrf` is set for logged-in pages (the logout form carries it).
    static func page(title: String, body: String, csrf: String?, script: String = "", nonce: String = "") -> String {
        let nav = csrf.map { token in
            """
            <nav><a href="/dashboard">Overview</a>
            <form method="post" action="/dashboard/logout" class="inline"><input type="hidden" name="csrf" value="\(escape(token))"><button>Log out</button></form></nav>
            """
        } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · PushRelay</title>
            <style>\(style)</style></head>
            <body><header><span class="brand">PushRelay</span>\(nav)</header>
            <main>\(body)</main>
            \(script.isEmpty ? "" : "<script nonce=\"\(nonce)\">\(script)</script>")
            </body></html>
            """
    }

    static let style = """
        *{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:#f4f6fa}
        header{display:flex;align-items:center;justify-content:space-between;background:#1d2330;color:#fff;padding:10px 24px}
        header a{color:#cfe0ff;margin-right:16px;text-decoration:none}.brand{font-weight:700;font-size:16px}
        nav{display:flex;align-items:center}main{max-width:1100px;margin:0 auto;padding:20px 24px}
        h1{font-size:20px;margin:4px 0 16px}h2{font-size:15px;margin:0 0 10px;color:#3a4457}
        .card{background:#fff;border:1px solid #dde3ee;border-radius:8px;padding:16px;margin-bottom:16px}
        .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:12px;margin-bottom:16px}
        .stat{background:#fff;border:1px solid #dde3ee;border-radius:8px;padding:12px}.stat b{display:block;font-size:22px}
        .stat span{color:#5b667a;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
        table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #eef1f6}
        th{font-size:12px;color:#5b667a;text-transform:uppercase;letter-spacing:.04em}td.n{text-align:right;font-variant-numeric:tabular-nums}
        a{color:#1f5fd1}.ok{color:#177245}.warning{color:#a05a00}.bad{color:#b3261e;font-weight:600}
        .badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;background:#eef1f6}
        .badge.ok{background:#e3f4ea}.badge.warning{background:#fff1d6}.badge.bad{background:#fde4e2}
        .bar{background:#eef1f6;border-radius:4px;height:12px;overflow:hidden;min-width:120px}
        .bar>div{height:100%;background:#2f7de1}.bar.big{height:22px}.bar.failed>div{background:#d9534f}
        .funnel td:first-child{width:160px}.funnel .bar{height:16px}
        svg.chart .sent{fill:#2f7de1}svg.chart .failed{fill:#d9534f}svg.chart .axis{stroke:#b8c1d1}
        svg.chart .tick{font-size:10px;fill:#5b667a}.legend i{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
        form.inline{display:inline;margin:0}button{background:#2f7de1;color:#fff;border:0;border-radius:6px;padding:6px 14px;cursor:pointer}
        header button{background:#3a4457}input,select{padding:6px 8px;border:1px solid #c7cfdd;border-radius:6px;font:inherit}
        .row{display:flex;gap:8px;flex-wrap:wrap;align-items:center}.error{color:#b3261e;margin:8px 0}
        .muted{color:#5b667a}code{font-size:12px}
        """
}
