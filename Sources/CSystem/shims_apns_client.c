#include "CSystem.h"
#include <pthread.h>

long CSystem_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return SSL_CTX_add1_chain_cert(ctx, cert);
}

static pthread_once_t CSystem_apns_threads_once = PTHREAD_ONCE_INIT;
static int CSystem_apns_threads_result = -1;

static void CSystem_apns_threads_init(void) {
    /* A peer that vanishes must give EPIPE on write, not kill the process. */
    signal(SIGPIPE, SIG_IGN);
    CSystem_apns_threads_result = evthread_use_pthreads();
}

int CSystem_apns_client_init(void) {
    pthread_once(&CSystem_apns_threads_once, CSystem_apns_threads_init);
    return CSystem_apns_threads_result == 0;
}
