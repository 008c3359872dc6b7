/// An HTTP/1.1 connection's progress: its parser, whether the request taken is still being
/// answered (the next one waits in the input meanwhile), and whether the connection closes
/// once the answer is out (the client asked, or its request was refused).
struct HTTP1Exchange {
    /// The most input held: one whole request of the largest size taken.
    static let inputLimit = HTTP1RequestParser.maxHeadBytes + HTTP1RequestParser.maxBodyBytes

    var parser = HTTP1RequestParser()
    var answering = false
    var closing = false
}
