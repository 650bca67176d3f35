#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/sha.h>

/* SHA-256 of `count` bytes into `digest` (32 bytes) on a context on the stack: no allocation, where
   every EVP digest allocates its context (EVP_Digest two mallocs, a reused EVP_MD_CTX one, per
   digest; measured). For the API key of every authenticated request (RegistryCrypto's
   SHA256.digest). The low-level calls are deprecated in OpenSSL 3.0, so their warning is silenced
   here, in the one place that uses them. */
static inline void ccrypto_sha256(const void *bytes, size_t count, unsigned char *digest) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, bytes, count);
    SHA256_Final(digest, &context);
    OPENSSL_cleanse(&context, sizeof context);
#pragma clang diagnostic pop
}
