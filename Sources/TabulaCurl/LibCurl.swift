internal import CCurl
import TabulaPlatform

/// libcurl's functions, loaded with `dlopen` when the first client is made: a process that
/// makes no outbound calls never maps libcurl, nor the TLS, HTTP/2 and LDAP libraries it
/// pulls in. The variadic calls go through the C trampolines in `CCurl/shim.h`.
struct LibCurl: @unchecked Sendable {
    /// An easy handle: one transfer (`CURL *`, which curl declares as `void *`).
    typealias Easy = UnsafeMutableRawPointer
    /// The multi handle (`CURLM *`, also `void *`): the transfers in flight and their connection cache.
    typealias Multi = UnsafeMutableRawPointer
    typealias HeaderList = UnsafeMutablePointer<curl_slist>
    typealias GlobalInit = @convention(c) (Int) -> CURLcode
    typealias EasyInit = @convention(c) () -> Easy?
    typealias OnEasy = @convention(c) (Easy?) -> Void
    typealias EasyStrerror = @convention(c) (CURLcode) -> UnsafePointer<CChar>?
    typealias SlistAppend = @convention(c) (HeaderList?, UnsafePointer<CChar>?) -> HeaderList?
    typealias SlistFreeAll = @convention(c) (HeaderList?) -> Void
    typealias MultiInit = @convention(c) () -> Multi?
    typealias OnMulti = @convention(c) (Multi?) -> CURLMcode
    typealias MultiHandle = @convention(c) (Multi?, Easy?) -> CURLMcode
    typealias MultiPerform = @convention(c) (Multi?, UnsafeMutablePointer<Int32>?) -> CURLMcode
    typealias MultiPoll = @convention(c) (Multi?, UnsafeMutablePointer<curl_waitfd>?, UInt32, Int32, UnsafeMutablePointer<Int32>?) -> CURLMcode
    typealias MultiInfoRead = @convention(c) (Multi?, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<CURLMsg>?
    typealias MultiStrerror = @convention(c) (CURLMcode) -> UnsafePointer<CChar>?
    typealias VersionInfo = @convention(c) (CURLversion) -> UnsafeMutablePointer<curl_version_info_data>?
    typealias WriteCallback = @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int

    let easyInit: EasyInit
    let easyCleanup: OnEasy
    let easyReset: OnEasy
    let easyStrerror: EasyStrerror
    let slistAppend: SlistAppend
    let slistFreeAll: SlistFreeAll
    let multiInit: MultiInit
    let multiCleanup: OnMulti
    let multiAddHandle: MultiHandle
    let multiRemoveHandle: MultiHandle
    let multiPerform: MultiPerform
    let multiPoll: MultiPoll
    let multiWakeup: OnMulti
    let multiInfoRead: MultiInfoRead
    let multiStrerror: MultiStrerror
    /// The variadic functions' addresses, for the trampolines.
    private let easySetopt: UnsafeMutableRawPointer
    private let easyGetinfo: UnsafeMutableRawPointer
    private let multiSetopt: UnsafeMutableRawPointer

    /// The library, loaded and initialised on first use; the error says what to install when
    /// it is missing.
    private static let shared: Result<LibCurl, HTTPClientError> = load()

    /// 7.85.0, as curl writes a version: 0xXXYYZZ.
    private static let minimumVersion: UInt32 = 0x07_55_00

    static func get() throws(HTTPClientError) -> LibCurl {
        try shared.get()
    }

    private static func load() -> Result<LibCurl, HTTPClientError> {
        let name = "libcurl.so.4"
        guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(.unavailable("cannot load \(name) (\(reason)); install the libcurl4 package to make outbound HTTP calls"))
        }
        var missing: [String] = []
        func address(_ name: String) -> UnsafeMutableRawPointer? {
            guard let address = dlsym(library, name) else {
                missing.append(name)
                return nil
            }
            return address
        }
        func symbol<Function>(_ name: String, _ type: Function.Type) -> Function? {
            address(name).map { unsafeBitCast($0, to: type) }
        }
        let globalInit = symbol("curl_global_init", GlobalInit.self)
        let easyInit = symbol("curl_easy_init", EasyInit.self)
        let easyCleanup = symbol("curl_easy_cleanup", OnEasy.self)
        let easyReset = symbol("curl_easy_reset", OnEasy.self)
        let easyStrerror = symbol("curl_easy_strerror", EasyStrerror.self)
        let slistAppend = symbol("curl_slist_append", SlistAppend.self)
        let slistFreeAll = symbol("curl_slist_free_all", SlistFreeAll.self)
        let multiInit = symbol("curl_multi_init", MultiInit.self)
        let multiCleanup = symbol("curl_multi_cleanup", OnMulti.self)
        let multiAddHandle = symbol("curl_multi_add_handle", MultiHandle.self)
        let multiRemoveHandle = symbol("curl_multi_remove_handle", MultiHandle.self)
        let multiPerform = symbol("curl_multi_perform", MultiPerform.self)
        let multiPoll = symbol("curl_multi_poll", MultiPoll.self)
        let multiWakeup = symbol("curl_multi_wakeup", OnMulti.self)
        let multiInfoRead = symbol("curl_multi_info_read", MultiInfoRead.self)
        let multiStrerror = symbol("curl_multi_strerror", MultiStrerror.self)
        let versionInfo = symbol("curl_version_info", VersionInfo.self)
        let easySetopt = address("curl_easy_setopt")
        let easyGetinfo = address("curl_easy_getinfo")
        let multiSetopt = address("curl_multi_setopt")
        guard let globalInit, let easyInit, let easyCleanup, let easyReset, let easyStrerror, let slistAppend, let slistFreeAll,
            let multiInit, let multiCleanup, let multiAddHandle, let multiRemoveHandle, let multiPerform, let multiPoll,
            let multiWakeup, let multiInfoRead, let multiStrerror, let easySetopt, let easyGetinfo, let multiSetopt,
            let versionInfo
        else {
            // curl_multi_poll and curl_multi_wakeup came in 7.66 and 7.68.
            return .failure(.unavailable("\(name) lacks \(missing.joined(separator: ", ")); install a current libcurl4 (7.85 or later)"))
        }
        // CURLOPT_PROTOCOLS_STR came in 7.85: an older library has every function above, and
        // would refuse each transfer instead of the start. The fields are read one by one
        // from the structure's first age, which every library fills: an older one's is
        // shorter than this header's.
        if let info = versionInfo(CURLVERSION_FIRST), let number = info.pointer(to: \.version_num)?.pointee, number < minimumVersion {
            let text = info.pointer(to: \.version)?.pointee.map { String(cString: $0) } ?? "an unknown version"
            return .failure(.unavailable("\(name) is libcurl \(text); install a current libcurl4 (7.85 or later)"))
        }
        // Once per process, before any other call, as curl requires; the `static let` above
        // runs this once, under Swift's lazy-initialisation lock.
        let initialised = globalInit(Int(CURL_GLOBAL_DEFAULT))
        guard initialised == CURLE_OK else {
            let text = easyStrerror(initialised).map { String(cString: $0) } ?? "error \(initialised.rawValue)"
            return .failure(.unavailable("curl_global_init failed: \(text)"))
        }
        return .success(
            LibCurl(
                easyInit: easyInit, easyCleanup: easyCleanup, easyReset: easyReset, easyStrerror: easyStrerror,
                slistAppend: slistAppend, slistFreeAll: slistFreeAll, multiInit: multiInit, multiCleanup: multiCleanup,
                multiAddHandle: multiAddHandle, multiRemoveHandle: multiRemoveHandle, multiPerform: multiPerform,
                multiPoll: multiPoll, multiWakeup: multiWakeup, multiInfoRead: multiInfoRead, multiStrerror: multiStrerror,
                easySetopt: easySetopt, easyGetinfo: easyGetinfo, multiSetopt: multiSetopt))
    }

    // MARK: The variadic calls, typed

    func set(_ handle: Easy, _ option: CURLoption, _ value: Int) -> CURLcode {
        tabula_curl_easy_setopt_long(easySetopt, handle, option, value)
    }

    /// A string option: curl copies the string, so it need only live for the call.
    func set(_ handle: Easy, _ option: CURLoption, _ value: String) -> CURLcode {
        value.withCString { tabula_curl_easy_setopt_pointer(easySetopt, handle, option, $0) }
    }

    /// A pointer curl keeps (a header list, user data, a buffer): it must outlive the transfer.
    func set(_ handle: Easy, _ option: CURLoption, pointer value: UnsafeRawPointer?) -> CURLcode {
        tabula_curl_easy_setopt_pointer(easySetopt, handle, option, value)
    }

    func set(_ handle: Easy, _ option: CURLoption, offset value: Int) -> CURLcode {
        tabula_curl_easy_setopt_off_t(easySetopt, handle, option, curl_off_t(value))
    }

    func set(_ handle: Easy, _ option: CURLoption, callback: WriteCallback) -> CURLcode {
        tabula_curl_easy_setopt_write_callback(easySetopt, handle, option, callback)
    }

    func info(_ handle: Easy, _ info: CURLINFO) -> Int? {
        var value = 0
        return tabula_curl_easy_getinfo_long(easyGetinfo, handle, info, &value) == CURLE_OK ? value : nil
    }

    func info(_ handle: Easy, offset info: CURLINFO) -> Int? {
        var value: curl_off_t = 0
        return tabula_curl_easy_getinfo_off_t(easyGetinfo, handle, info, &value) == CURLE_OK ? Int(value) : nil
    }

    /// A string the handle owns, copied before the handle is reset.
    func info(_ handle: Easy, text info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard tabula_curl_easy_getinfo_string(easyGetinfo, handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    func set(_ multi: Multi, _ option: CURLMoption, _ value: Int) -> CURLMcode {
        tabula_curl_multi_setopt_long(multiSetopt, multi, option, value)
    }

    // MARK: Error texts

    func text(_ code: CURLcode) -> String {
        easyStrerror(code).map { String(cString: $0) } ?? "curl error \(code.rawValue)"
    }

    func text(_ code: CURLMcode) -> String {
        multiStrerror(code).map { String(cString: $0) } ?? "curl multi error \(code.rawValue)"
    }
}
