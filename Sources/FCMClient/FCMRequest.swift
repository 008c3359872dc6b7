import APNSClient

/// One POST the FCM client hands to the connection pools: a `messages:send` with its access
/// token, or an access-token request to the service account's `token_uri`.
struct FCMRequest: HTTP2Message {
    /// `/v1/projects/{project_id}/messages:send`, or the token endpoint's path; shared by every request.
    let path: [UInt8]
    /// `Bearer <access token>`, shared by every request of a round; nil for the token request.
    let authorization: [UInt8]?
    let contentType: StaticString
    let body: [UInt8]
    let expiration: Int?

    func layOutFields(_ block: inout RequestHeaderBlock, authorization _: [UInt8]?) {
        block.add(":path", bytes: path)
        if let authorization { block.add("authorization", bytes: authorization) }
        block.add("content-type", contentType)
    }
}
