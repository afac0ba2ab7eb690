#ifndef DROPCUT_CCRYPTO_SHIM_H
#define DROPCUT_CCRYPTO_SHIM_H
// OpenSSL's libcrypto: SHA-256 (EVP) and HMAC. Already loaded by every dropcut process
// (libcurl and libpq link it), and it uses the CPU's SHA extensions where there are some.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif
