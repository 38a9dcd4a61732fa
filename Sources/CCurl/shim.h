// libcurl's declarations (Debian libcurl4-openssl-dev). Only the types and constants are used
// at build time: the functions are looked up with dlopen when the first HTTP client is made
// (TabulaCurl/LibCurl.swift), so the binary does not link libcurl.
//
// Swift cannot call C's variadic functions, and curl's option and information calls are
// variadic. Each trampoline below takes the address dlsym gave and calls it through its real
// variadic type, with one fixed type of argument: what curl's va_arg reads for that option.
#ifndef TABULA_CURL_SHIM_H
#define TABULA_CURL_SHIM_H

// Nothing here calls curl_easy_setopt by name, so the type-checking macros have nothing to check.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/// curl_easy_setopt with a long (flags, sizes and times in milliseconds).
static inline CURLcode tabula_curl_easy_setopt_long(void *fn, CURL *handle, CURLoption option, long value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))fn)(handle, option, value);
}

/// curl_easy_setopt with a pointer (strings, which curl copies; lists and user data, which it does not).
static inline CURLcode tabula_curl_easy_setopt_pointer(void *fn, CURL *handle, CURLoption option, const void *value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))fn)(handle, option, value);
}

/// curl_easy_setopt with a curl_off_t (the *_LARGE sizes).
static inline CURLcode tabula_curl_easy_setopt_off_t(void *fn, CURL *handle, CURLoption option, curl_off_t value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))fn)(handle, option, value);
}

/// curl_easy_setopt with a write callback (CURLOPT_WRITEFUNCTION).
static inline CURLcode tabula_curl_easy_setopt_write_callback(void *fn, CURL *handle, CURLoption option, curl_write_callback value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))fn)(handle, option, value);
}

/// curl_easy_getinfo for a long (CURLINFO_RESPONSE_CODE, CURLINFO_NUM_CONNECTS).
static inline CURLcode tabula_curl_easy_getinfo_long(void *fn, CURL *handle, CURLINFO info, long *value) {
    return ((CURLcode (*)(CURL *, CURLINFO, ...))fn)(handle, info, value);
}

/// curl_easy_getinfo for a curl_off_t (CURLINFO_RETRY_AFTER).
static inline CURLcode tabula_curl_easy_getinfo_off_t(void *fn, CURL *handle, CURLINFO info, curl_off_t *value) {
    return ((CURLcode (*)(CURL *, CURLINFO, ...))fn)(handle, info, value);
}

/// curl_easy_getinfo for a string (CURLINFO_CONTENT_TYPE), owned by the handle.
static inline CURLcode tabula_curl_easy_getinfo_string(void *fn, CURL *handle, CURLINFO info, char **value) {
    return ((CURLcode (*)(CURL *, CURLINFO, ...))fn)(handle, info, value);
}

/// curl_multi_setopt with a long (the connection limits).
static inline CURLMcode tabula_curl_multi_setopt_long(void *fn, CURLM *multi, CURLMoption option, long value) {
    return ((CURLMcode (*)(CURLM *, CURLMoption, ...))fn)(multi, option, value);
}

#endif
