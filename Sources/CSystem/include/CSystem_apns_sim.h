#ifndef CSYSTEM_APNS_SIM_H
#define CSYSTEM_APNS_SIM_H

#include <openssl/ssl.h>

/* The APNs simulator's shims: socket options and OpenSSL macros Swift cannot call. */

/* No compression, no renegotiation, a server-side session cache: SSL_OP_* and
   SSL_CTX_set_session_cache_mode are macros. */
void CSystem_apns_sim_tune_context(SSL_CTX *ctx);

#endif
