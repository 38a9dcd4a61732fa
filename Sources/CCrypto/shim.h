// OpenSSL's libcrypto (Debian libssl-dev): SHA-256 of session tokens, which the stores keep
// instead of the tokens. The runtime image carries libcrypto already, for libpq.
#ifndef TABULA_CRYPTO_SHIM_H
#define TABULA_CRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/sha.h>
#endif
