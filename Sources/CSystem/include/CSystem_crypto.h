#ifndef CSYSTEM_CRYPTO_H
#define CSYSTEM_CRYPTO_H

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/provider.h>

/* Reads a PEM private key without ever prompting: an encrypted key fails instead of
   asking for a passphrase on the terminal (OpenSSL's default callback would). */
EVP_PKEY *CSystem_PEM_read_PrivateKey_no_passphrase(BIO *bio);

/* Prints a distinguished name as RFC 2253 text, keeping UTF-8 as is
   (the XN_FLAG_* macros do not import into Swift). */
int CSystem_X509_NAME_print_rfc2253(BIO *bio, const X509_NAME *name);

#endif
