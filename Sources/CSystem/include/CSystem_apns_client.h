#ifndef CSYSTEM_APNS_CLIENT_H
#define CSYSTEM_APNS_CLIENT_H

#include <event2/dns.h>
#include <openssl/ssl.h>

/* SSL_CTX_add1_chain_cert is a macro: adds an intermediate to the client certificate chain. */
long CSystem_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert);

/* Once per process: libevent uses pthread locks (event_active from other threads) and
   SIGPIPE is ignored (writes to a dropped connection fail instead of killing us).
   Returns 1 on success; idempotent. */
int CSystem_apns_client_init(void);

#endif
