internal import CMicroHTTPD
public import HTTPTypes

/// A response built once and queued many times: libmicrohttpd reference-counts it, so
/// sending it costs no copy and no allocation. Suited to cached screens and fixed answers.
public final class PreparedResponse: @unchecked Sendable {
    public let status: HTTPResponse.Status
    public let headerFields: HTTPFields
    public let body: [UInt8]
    /// The `MHD_Response`; immutable after init, and libmicrohttpd locks its reference count.
    let handle: OpaquePointer

    /// Builds the response; `nil` only if libmicrohttpd cannot allocate it.
    public init?(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: [UInt8] = []) {
        guard let handle = MHDResponseFactory.make(headerFields: headerFields, body: body) else { return nil }
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.handle = handle
    }

    deinit {
        MHD_destroy_response(handle)
    }
}

/// Creates `MHD_Response` objects with a copied body and the given headers.
enum MHDResponseFactory {
    static func make(headerFields: HTTPFields, body: [UInt8], closesConnection: Bool = false) -> OpaquePointer? {
        let response = body.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(
                buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return nil }
        addHeaderFields(headerFields, to: response)
        if closesConnection {
            _ = MHD_add_response_header(response, "Connection", "close")
        }
        return response
    }

    /// A response whose body `stream` produces, in chunks (HTTP/1.1) or until the
    /// connection closes (HTTP/1.0). libmicrohttpd holds a reference to the stream until
    /// it destroys the response.
    /// `headOnly` is for HEAD: the head alone, closing the connection after it.
    static func make(headerFields: HTTPFields, stream: ServerStream, headOnly: Bool = false) -> OpaquePointer? {
        let retained = Unmanaged.passRetained(stream)
        guard
            let response = MHD_create_response_from_callback(
                UInt64.max, streamBlockSize, MHDCallbacks.streamReader, retained.toOpaque(), MHDCallbacks.streamReleased)
        else {
            retained.release()
            return nil
        }
        addHeaderFields(headerFields, to: response)
        if headOnly && tabula_close_unchunked(response) != .YES {
            MHD_destroy_response(response)
            return nil
        }
        return response
    }

    /// The buffer libmicrohttpd keeps per streamed response for HTTP/1.0 clients (with
    /// chunked encoding it fills the connection's own write buffer instead). Events are
    /// small, and each open stream holds one.
    private static let streamBlockSize = 1024

    private static func addHeaderFields(_ headerFields: HTTPFields, to response: OpaquePointer) {
        for field in headerFields {
            // withCString lends a native string's own bytes; passing a String where a C
            // string is expected would copy it into a new array, one allocation per argument.
            field.name.rawName.withCString { name in
                field.value.withCString { value in _ = MHD_add_response_header(response, name, value) }
            }
        }
    }
}
