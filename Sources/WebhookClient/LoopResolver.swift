import CSystem
import EventLoops

/// One loop's DNS resolver: libevent's evdns, which asks the name servers of
/// /etc/resolv.conf (and reads /etc/hosts) without blocking the loop, unlike getaddrinfo.
/// Made on the loop's first lookup; the files are read then, once.
///
/// Thread rule: used only on `loop`'s thread (the client holds it as a `LoopBound`).
final class LoopResolver {
    let loop: EventLoop
    private var base: OpaquePointer?
    /// Lookups whose callback has not come yet: a cancelled one calls back later, and evdns
    /// must still be there then.
    private var lookups = 0
    private var closing = false

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// The evdns base, made now if this is the first lookup.
    var dnsBase: OpaquePointer? {
        if base == nil, !closing { base = evdns_base_new(loop.base, Int32(EVDNS_BASE_INITIALIZE_NAMESERVERS)) }
        return base
    }

    func lookupStarted() {
        lookups += 1
    }

    /// Called from a lookup's callback (inside evdns): a pending close frees evdns afterwards.
    func lookupEnded() {
        lookups -= 1
        if closing, lookups == 0 { LoopBound(self, loop: loop).execute { $0.free() } }
    }

    /// Frees the resolver once no lookup is left to call back.
    func close() {
        closing = true
        if lookups == 0 { free() }
    }

    private func free() {
        if let base { evdns_base_free(base, 0) }
        base = nil
    }
}
