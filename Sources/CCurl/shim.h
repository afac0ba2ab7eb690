#ifndef DROPCUT_CCURL_SHIM_H
#define DROPCUT_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
   wrapper per kind of argument. */
static inline CURLcode dropcut_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode dropcut_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*dropcut_curl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode dropcut_curl_setopt_write(CURL *handle, dropcut_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode dropcut_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
/* CURLOPT_XFERINFOFUNCTION: called while a transfer runs; non-zero aborts it (a delivery
   stopped at shutdown). */
typedef int (*dropcut_curl_xferinfo_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                              curl_off_t upload_total, curl_off_t uploaded);
static inline CURLcode dropcut_curl_setopt_xferinfo(CURL *handle, dropcut_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
#endif
