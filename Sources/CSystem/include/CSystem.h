#ifndef CSYSTEM_H
#define CSYSTEM_H

/* Settle glibc's feature macros before libevent's event-config.h defines _GNU_SOURCE:
 * otherwise fd_set here has `fds_bits` while Dispatch's copy has `__fds_bits`, and a
 * clean build of any Swift module importing both CSystem and Foundation fails. */
#include <sys/types.h>
#include <sys/select.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/listener.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>

#include <nghttp2/nghttp2.h>

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pkcs12.h>
#include <openssl/rand.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/kdf.h>
#include <openssl/crypto.h>
#include <openssl/bio.h>

#include <postgresql/libpq-fe.h>

#include <signal.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

/* OpenSSL function-like macros do not import into Swift. */
long CSystem_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
int CSystem_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
long CSystem_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
void CSystem_OPENSSL_free(void *ptr);
long CSystem_BIO_get_mem_data(BIO *bio, char **data);
int CSystem_EVP_PKEY_is_P256(EVP_PKEY *pkey);

/* Turns off Nagle on a TCP socket, so small HTTP/2 frames leave at once instead of
   waiting for the peer's ACK of the previous ones (TCP_NODELAY is not imported). */
int CSystem_set_tcp_nodelay(int fd);

/* Names the calling thread for ps/top/debuggers (the kernel keeps 15 characters). */
void CSystem_set_thread_name(const char *name);

/* Gives the pages malloc holds free back to the kernel (glibc's malloc_trim(0), which
   <malloc.h> does not export to Swift; nothing elsewhere). Returns 1 if any were. */
int CSystem_release_free_memory(void);

/* Each area keeps its own shims in its own header and .c file. */
#include "CSystem_http.h"
#include "CSystem_store.h"
#include "CSystem_crypto.h"
#include "CSystem_apns_client.h"
#include "CSystem_apns_sim.h"

#endif
