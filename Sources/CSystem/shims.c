#define _GNU_SOURCE  /* pthread_setname_np */
#include "CSystem.h"
#include <netinet/tcp.h>
#include <openssl/core_names.h>
#include <pthread.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

int CSystem_set_tcp_nodelay(int fd) {
    int on = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

void CSystem_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof(truncated) - 1);
    truncated[sizeof(truncated) - 1] = '\0';
    pthread_setname_np(pthread_self(), truncated);
}

int CSystem_release_free_memory(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}

long CSystem_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

int CSystem_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

long CSystem_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

void CSystem_OPENSSL_free(void *ptr) {
    OPENSSL_free(ptr);
}

long CSystem_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/* 1 when the key is an EC key on the P-256 curve (prime256v1), the only curve ES256 allows. */
int CSystem_EVP_PKEY_is_P256(EVP_PKEY *pkey) {
    if (pkey == NULL || EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC) return 0;
    char name[64] = {0};
    size_t len = 0;
    if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof(name), &len) != 1) return 0;
    return strcmp(name, "prime256v1") == 0 || strcmp(name, "P-256") == 0;
}
