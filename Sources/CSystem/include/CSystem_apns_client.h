#ifndef CSYSTEM_APNS_CLIENT_H
#define CSYSTEM_APNS_CLIENT_H

#include <event2/dns.h>
#include <openssl/ssl.h>

/* SSL_CTX_add1_chain_cert is a macro: adds an intermediate to the client certificate chain. */
long CSystem_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert);

#endif
